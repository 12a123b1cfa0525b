/** Writes of files that users and other programs read: whole or not at all, even across a crash. */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Owner read/write only: these files hold transcript content. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Temp file in the same dir (so rename is atomic), flushed before it takes the name; then the dir
 * is flushed. Text is written as UTF-8; bytes (rewind's restored files) as they are.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = PRIVATE_FILE_MODE): Promise<void> {
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
  // The rename itself survives a crash only once the dir is flushed.
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * Errors of calls on a file handle (write, sync) carry no path: the file the caller asked for is
 * set on them, so that the client is told which file a full disk or a permission refused.
 */
export function namingPath(error: unknown, path: string): unknown {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' && (error as { path?: unknown }).path === undefined) {
    (error as { path?: string }).path = path;
  }
  return error;
}
