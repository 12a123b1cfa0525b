/** Reading files that may not be there yet (summaries, persisted results, overrides, histories). */
import { open, readFile, type FileHandle } from 'node:fs/promises';

/** The error says the path, or a directory on it, does not exist. */
export function isMissingPath(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The file's text, or null when it (or a directory on its path) does not exist. */
export async function readTextIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingPath(error)) return null;
    throw error;
  }
}

/**
 * The file opened for reading, or null when it (or a directory on its path) does not exist.
 * `flags` replaces plain read-only (O_NONBLOCK so a FIFO cannot block, O_NOFOLLOW for files
 * that must not be symlinks).
 */
export async function openIfPresent(path: string, flags: string | number = 'r'): Promise<FileHandle | null> {
  try {
    return await open(path, flags);
  } catch (error) {
    if (isMissingPath(error)) return null;
    throw error;
  }
}
