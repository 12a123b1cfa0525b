/** Reading files that may not be there yet (summaries, persisted results, overrides). */
import { readFile } from 'node:fs/promises';

/** The file's text, or null when it (or a directory on its path) does not exist. */
export async function readTextIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}
