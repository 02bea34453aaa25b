import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from './processes';

/** A release's sources, checked out beside this repository to run its apps from. */
export interface ReleaseCheckout {
  root: string;
  remove(): void;
}

function hasCommit(commit: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], {
      cwd: repositoryRoot,
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * The tree of `commit` in a temporary folder with its own packages: this checkout's node_modules
 * when the two lock the same ones, else installed from its lock file. A shallow clone lacks the
 * commit: it is fetched from `origin` then, and the error says so when that fails too.
 */
export function checkoutRelease(commit: string): ReleaseCheckout {
  if (!hasCommit(commit)) {
    try {
      execFileSync('git', ['fetch', '--quiet', '--depth=1', 'origin', commit], {
        cwd: repositoryRoot,
        stdio: 'ignore',
      });
    } catch {
      // Said below, with what to do.
    }
  }
  if (!hasCommit(commit)) {
    throw new Error(
      `release ${commit} is not in this clone and could not be fetched from origin: ` +
        'the rolling-deploy spec needs the repository history (a clone without --depth)',
    );
  }
  const root = mkdtempSync(join(tmpdir(), 'wap-release-'));
  execSync(`git archive --format=tar ${commit} | tar -x -C ${JSON.stringify(root)}`, {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lockOf = (tree: string) => readFileSync(join(tree, 'package-lock.json'), 'utf8');
  if (lockOf(root) === lockOf(repositoryRoot)) {
    symlinkSync(join(repositoryRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  } else {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
