/** Writes of files that users and other programs read: whole or not at all, even across a crash. */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Owner read/write only: these files hold transcript content. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Temp file in the same dir (so rename is atomic), flushed before it takes the name; then the dir
 * is flushed. Text is written as UTF-8; bytes (rewind's restored files) as they are.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = PRIVATE_FILE_MODE,
): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const file = await open(temp, 'wx', mode);
    try {
      // The mode asked for, not what the process umask leaves of it (a new .gitignore is 0644).
      await file.chmod(mode);
      await file.writeFile(data, typeof data === 'string' ? 'utf8' : null);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw namingPath(error, path);
  }
  await removeStaleTemps(path);
  // The rename itself survives a crash only once the dir is flushed.
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Targets whose dir was looked at for stale temps in this run: once each is enough. */
const swept = new Set<string>();
/** A bound on `swept`: past it, targets are no longer looked at (the state dir is swept at start anyway). */
const MAX_SWEPT = 10_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The temps of this same target that a crashed writer left (`.<name>.<pid>.<hex>.tmp` of a pid
 * no longer running), removed the first time memd writes the target again. Only this target's:
 * the dir may be a user's, and nothing else in it is memd's to remove.
 */
async function removeStaleTemps(path: string): Promise<void> {
  if (swept.has(path) || swept.size >= MAX_SWEPT) return;
  swept.add(path);
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    await rm(join(dirname(path), name), { force: true }).catch(() => undefined);
  }
}

/**
 * Errors of calls on a file handle (write, sync) carry no path: the file the caller asked for is
 * set on them, so that the client is told which file a full disk or a permission refused.
 */
export function namingPath(error: unknown, path: string): unknown {
  if (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    (error as { path?: unknown }).path === undefined
  ) {
    (error as { path?: string }).path = path;
  }
  return error;
}
