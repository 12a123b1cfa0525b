/**
 * Reading files that may not be there yet (summaries, persisted results, overrides, histories).
 * Every open is non-blocking and every file is checked to be a regular one: a FIFO or device at
 * one of these paths would otherwise hold a thread-pool thread (four in all) until a writer came.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';

/** Plain read-only, except that opening a FIFO returns at once instead of waiting for a writer. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** The error says the path, or a directory on it, does not exist. */
export function isMissingPath(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function notAFile(path: string): RpcError {
  return new RpcError(
    ErrorCode.PathRejected,
    'NotAFile',
    `${path} is not a regular file (a FIFO, device, socket or dir); memd reads only regular files`,
    { path },
  );
}

/** The file's text, or null when it (or a directory on its path) does not exist. */
export async function readTextIfPresent(path: string): Promise<string | null> {
  const handle = await openIfPresent(path);
  if (handle === null) return null;
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The regular file opened for reading; anything but a regular file is refused (`notAFile`).
 * `flags` adds to READ_FLAGS (e.g. O_NOFOLLOW for files that must not be symlinks).
 */
export async function openRegularFile(path: string, flags = 0): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS | flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw notAFile(path);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw notAFile(path);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** As openRegularFile, or null when the file (or a directory on its path) does not exist. */
export async function openIfPresent(path: string, flags = 0): Promise<FileHandle | null> {
  try {
    return await openRegularFile(path, flags);
  } catch (error) {
    if (isMissingPath(error)) return null;
    throw error;
  }
}
