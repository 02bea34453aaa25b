import fsp from 'node:fs/promises';
import path from 'node:path';

/** Data folders this process holds, so a second open in the same process fails too. */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dataDir>/LOCK` (holding our pid) so that two writers never share a data folder.
 * A lock left by a process that no longer runs is taken over. Returns the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const folder = path.resolve(dataDir);
  const lockPath = path.join(folder, 'LOCK');
  if (heldHere.has(folder)) {
    throw new Error(`data folder ${folder} is already open in this process`);
  }
  await fsp.mkdir(folder, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await fsp.writeFile(lockPath, String(process.pid), { flag: 'wx' });
      heldHere.add(folder);
      return async () => {
        heldHere.delete(folder);
        await fsp.rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await fsp.readFile(lockPath, 'utf8').catch(() => ''), 10);
    // Our own pid in a lock we do not hold was left by an earlier process (pids are reused,
    // e.g. pid 1 in every container start).
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
      throw new Error(`data folder ${folder} is in use by process ${holder}`);
    }
    await fsp.rm(lockPath, { force: true });
  }
  throw new Error(`could not lock data folder ${folder}`);
}
