/**
 * Where a restore may write: the session's project root, the git root of its cwd (the nearest
 * directory up from it holding `.git`), or the cwd itself outside a repository. A transcript
 * can list any absolute path; only the project's are restored without the caller's explicit
 * consent (`allowOutsideProject`).
 */
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Directories walked up from the cwd at most; a path has fewer components than this. */
const MAX_LEVELS = 256;

/** Walked lexically from the cwd as the transcript wrote it, so the root is in the form its paths are. */
export async function projectRoot(cwd: string): Promise<string> {
  const start = cwd;
  let at = start;
  for (let level = 0; level < MAX_LEVELS; level++) {
    if ((await lstat(join(at, '.git')).catch(() => null)) !== null) return at;
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  return start;
}
