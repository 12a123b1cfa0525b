/**
 * Files memd reads and writes in a user's working tree (`docs/handoff-context.md`, `.gitignore`):
 * the tree may be a repository someone else wrote, so nothing in it is trusted. No symlink is
 * followed below the root (each component is lstat'ed; the file is opened O_NOFOLLOW and
 * fstat'ed), only regular files are read or replaced, and nothing blocks on a FIFO (O_NONBLOCK).
 * The root itself is the session's cwd, resolved by the caller (checkCwd).
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { isMissingPath } from './read.js';

/** A handoff or .gitignore bigger than this is not one memd wrote or should load whole. */
export const MAX_WORK_TREE_FILE_BYTES = 4 * 1024 * 1024;
/** Directories memd creates in the tree (docs/): as the user's own `mkdir` makes them, 0777 less their umask. */
const NEW_DIR_MODE = 0o777;
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

export type WorkTreeRead = { kind: 'file'; text: string; mode: number } | { kind: 'absent' } | { kind: 'refused'; reason: string };

export class WorkTreeRefusal extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'WorkTreeRefusal';
  }
}

function partsOf(relativePath: string): string[] {
  const parts = relativePath.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) throw new Error(`not a plain relative path: ${relativePath}`);
  return parts;
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
    if (found.isSymbolicLink()) return `${at} is a symlink; memd does not follow symlinks in a working tree`;
    if (!found.isDirectory()) return `${at} is not a directory`;
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
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'refused', reason: `${path} is a symlink; memd does not follow symlinks in a working tree` };
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: 'refused', reason: `${path} is not a regular file` };
    if (stat.size > MAX_WORK_TREE_FILE_BYTES) return { kind: 'refused', reason: `${path} is ${stat.size} bytes, over ${MAX_WORK_TREE_FILE_BYTES}` };
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
export async function writeInWorkTree(root: string, relativePath: string, data: string, newMode: number): Promise<string> {
  const parts = partsOf(relativePath);
  const path = join(root, ...parts);
  const dirs = await checkDirs(root, parts.slice(0, -1), true);
  if (dirs !== null && dirs !== 'absent') throw new WorkTreeRefusal(path, dirs);
  const current = await readInWorkTree(root, relativePath);
  if (current.kind === 'refused') throw new WorkTreeRefusal(path, current.reason);
  await writeFileAtomic(path, data, current.kind === 'file' ? current.mode : newMode);
  return path;
}
