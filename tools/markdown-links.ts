// Finds the relative links of the repository's Markdown files that do not resolve to a file or
// folder inside the repository, so that a clean clone reads on its own.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Folders that are generated or installed, never part of a clean clone (see .gitignore). */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'tmp', 'data', 'coverage', '.nx', '.git']);

export interface BrokenLink {
  /** The Markdown file, relative to the repository root. */
  file: string;
  line: number;
  target: string;
  reason: 'missing' | 'outside the repository' | 'no such heading';
}

/** Every Markdown file under `root`, relative paths, sorted. */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(join(folder, entry.name));
      } else if (entry.name.endsWith('.md')) {
        found.push(relative(root, join(folder, entry.name)));
      }
    }
  };
  walk(root);
  return found.sort();
}

// Inline links and images `[text](target "title")`, and reference definitions `[id]: target`.
const INLINE_LINK = /!?\[[^\]]*\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/;
// Paths in code spans (`../shared/spec/interface-spec.md`) are links a reader follows by hand.
const CODE_SPAN_PATH = /`((?:\.{1,2}\/|\/)[^`\s]*\.md)`/g;
const FENCE = /^\s*(```|~~~)/;

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/** The links of one Markdown text with their line numbers (fenced code blocks skipped). */
export function linksOf(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((content, index) => {
    if (FENCE.test(content)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const line = index + 1;
    const targets = [
      ...[...content.matchAll(INLINE_LINK)].map((match) => match[1]),
      REFERENCE_DEFINITION.exec(content)?.[1],
      ...[...content.matchAll(CODE_SPAN_PATH)].map((match) => match[1]),
    ];
    for (const target of targets) if (target) links.push({ line, target });
  });
  return links.filter(({ target }) => !isExternal(target));
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to '-'. */
export function headingSlugs(markdownFile: string): Set<string> {
  const slugs = new Set<string>();
  let fenced = false;
  for (const content of readFileSync(markdownFile, 'utf8').split('\n')) {
    if (FENCE.test(content)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(content)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let unique = slug;
    for (let repeat = 1; slugs.has(unique); repeat += 1) unique = `${slug}-${repeat}`;
    slugs.add(unique);
  }
  return slugs;
}

/** The links of the Markdown files under `root` that point to nothing inside `root`. */
export function brokenLinks(root: string): BrokenLink[] {
  const rootPath = resolve(root);
  const broken: BrokenLink[] = [];
  for (const file of markdownFiles(rootPath)) {
    const text = readFileSync(join(rootPath, file), 'utf8');
    for (const { line, target } of linksOf(text)) {
      const path = decodeURIComponent(target.replace(/[#?].*$/, ''));
      const resolved = resolve(rootPath, dirname(file), path);
      // An absolute path names this machine's files, which another clone does not have.
      const inside =
        !isAbsolute(path) && (resolved === rootPath || resolved.startsWith(rootPath + sep));
      const anchor = /#(.+)$/.exec(target)?.[1];
      const headingFile = path === '' ? join(rootPath, file) : resolved;
      if (!inside) broken.push({ file, line, target, reason: 'outside the repository' });
      else if (!existsSync(resolved)) broken.push({ file, line, target, reason: 'missing' });
      else if (anchor && headingFile.endsWith('.md') && !headingSlugs(headingFile).has(anchor)) {
        broken.push({ file, line, target, reason: 'no such heading' });
      }
    }
  }
  return broken;
}

/**
 * The files that describe the code by its paths: a moved or renamed file must be followed there.
 * (Decision records keep the paths of their day.)
 */
export const CODE_WALKS = ['README.md', 'ARCHITECTURE.md', 'docs/CONVENTIONS.md'];

// Repository paths in code spans, with an optional line: `apps/chat/src/turns/runner.ts`,
// `libs/platform/src/distributed`, `libs/contracts/src/errors.ts:5`.
const REPOSITORY_PATH = /`((?:apps|libs|tools|docs|bench|deploy)\/[^`\s<>{}*:]+)(?::(\d+))?`/g;

/** Whether `path` exists and, when `line` is given, is a file with that many lines. */
function pathExists(root: string, path: string, line: string | undefined): boolean {
  const full = join(root, path);
  if (!existsSync(full)) return false;
  return line === undefined || readFileSync(full, 'utf8').split('\n').length >= Number(line);
}

/** The repository paths (and path:line) that `file` names in code spans and that do not exist. */
export function missingCodePaths(root: string, file: string): { line: number; path: string }[] {
  const missing: { line: number; path: string }[] = [];
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((content, index) => {
      for (const [, path, line] of content.matchAll(REPOSITORY_PATH)) {
        if (path && !pathExists(root, path, line)) {
          missing.push({ line: index + 1, path: line ? `${path}:${line}` : path });
        }
      }
    });
  return missing;
}
