/**
 * Files memd reads and writes in a user's working tree, by the rule in shared/work-tree.ts (which
 * the hooks' synchronous twin, client/memctl/work-tree.ts, follows too): no symlink followed below
 * the root, only regular files up to a cap, nothing blocking on a FIFO (O_NONBLOCK). The root
 * itself is the session's cwd, resolved by the caller (checkCwd).
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  directoryRefusal,
  fileRefusal,
  isMissingPath,
  NEW_WORK_TREE_DIR_MODE as NEW_DIR_MODE,
  workTreeParts as partsOf,
  symlinkRefusal,
  type WorkTreeRead,
  WorkTreeRefusal,
} from '../../shared/work-tree.js';
import { writeFileAtomic } from './atomic.js';

export { MAX_WORK_TREE_FILE_BYTES, type WorkTreeRead, WorkTreeRefusal } from '../../shared/work-tree.js';

/** Until bootstrap says otherwise: the usual login umask. */
const DEFAULT_USER_UMASK = 0o022;
let userUmask = DEFAULT_USER_UMASK;

/**
 * The umask memd was started with, which is the user's (memctl, a hook or systemd started it),
 * before bootstrap tightens memd's own to 077 for its private files: a docs/ memd makes in the
 * user's repository is then what their own mkdir would make, not 0700 (issue 29).
 */
export function setUserUmask(mask: number): void {
  userUmask = mask & 0o777;
}

/**
 * Gives a directory just made the user's mode. Through a descriptor opened O_NOFOLLOW: a name
 * swapped for a symlink since the mkdir is refused by the check after, never chmod'ed through.
 */
async function giveUserMode(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(() => null);
  if (handle === null) return;
  try {
    await handle.chmod(NEW_DIR_MODE & ~userUmask);
  } finally {
    await handle.close();
  }
}

/**
 * Checks the directories between the root and the file: each must be a real directory, not a
 * symlink. With `create`, missing ones are made. Returns the reason to refuse, or null.
 */
async function checkDirs(root: string, dirs: readonly string[], create: boolean): Promise<string | 'absent' | null> {
  let at = root;
  for (const dir of dirs) {
    at = join(at, dir);
    let found = await lstat(at).catch((error: unknown) => (isMissingPath(error) ? null : Promise.reject(error)));
    if (found === null) {
      if (!create) return 'absent';
      const made = await mkdir(at, { mode: NEW_DIR_MODE }).then(
        () => true,
        (error: unknown) => ((error as NodeJS.ErrnoException).code === 'EEXIST' ? false : Promise.reject(error)),
      );
      if (made) await giveUserMode(at);
      found = await lstat(at);
    }
    const refusal = directoryRefusal(at, found);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** The file's text, or why it was not read; never through a symlink, never from a FIFO or device. */
export async function readInWorkTree(root: string, relativePath: string): Promise<WorkTreeRead> {
  const parts = partsOf(relativePath);
  const dirs = await checkDirs(root, parts.slice(0, -1), false);
  if (dirs === 'absent') return { kind: 'absent' };
  if (dirs !== null) return { kind: 'refused', reason: dirs };
  const path = join(root, ...parts);
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isMissingPath(error)) return { kind: 'absent' };
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'refused', reason: symlinkRefusal(path) };
    throw error;
  }
  try {
    const stat = await handle.stat();
    const refusal = fileRefusal(path, stat);
    if (refusal !== null) return { kind: 'refused', reason: refusal };
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    return { kind: 'file', text: buffer.subarray(0, bytesRead).toString('utf8'), mode: stat.mode & 0o777 };
  } finally {
    await handle.close();
  }
}

/**
 * Replaces (or creates) the file atomically, keeping an existing file's mode and giving a new one
 * `newMode`. Throws WorkTreeRefusal when a directory on the way or the file is a symlink or not
 * what it should be; nothing is written then.
 */
export async function writeInWorkTree(
  root: string,
  relativePath: string,
  data: string,
  newMode: number,
): Promise<string> {
  const parts = partsOf(relativePath);
  const path = join(root, ...parts);
  const dirs = await checkDirs(root, parts.slice(0, -1), true);
  if (dirs !== null && dirs !== 'absent') throw new WorkTreeRefusal(path, dirs);
  const current = await readInWorkTree(root, relativePath);
  if (current.kind === 'refused') throw new WorkTreeRefusal(path, current.reason);
  await writeFileAtomic(path, data, current.kind === 'file' ? current.mode : newMode);
  return path;
}
