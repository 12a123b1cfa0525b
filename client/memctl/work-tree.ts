/**
 * The hooks' fallbacks without a daemon read and write the handoff in the user's working tree
 * themselves, by the daemon's rule (daemon/fs/work-tree.ts): nothing below the cwd is followed
 * if it is a symlink, only regular files are read, nothing blocks on a FIFO. Synchronous: a hook
 * is a short-lived process with nothing else to do.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';

/** What a hook loads at most: the daemon's own cap on a handoff. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** docs/ as the user's own `mkdir` makes it: 0777 less the hook's umask, which is theirs (issue 29). */
const NEW_DIR_MODE = 0o777;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Null when every directory on the way is a real one (made with `create`); else why not. */
function checkDirs(root: string, dirs: readonly string[], create: boolean): string | 'absent' | null {
  let at = root;
  for (const dir of dirs) {
    at = join(at, dir);
    let found;
    try {
      found = lstatSync(at);
    } catch (error) {
      if (!isMissing(error)) throw error;
      if (!create) return 'absent';
      mkdirSync(at, { mode: NEW_DIR_MODE });
      found = lstatSync(at);
    }
    if (found.isSymbolicLink()) return `${at} is a symlink; memd does not follow symlinks in a working tree`;
    if (!found.isDirectory()) return `${at} is not a directory`;
  }
  return null;
}

/** The file's text; null when it is absent; throws with the reason when it is a symlink or no regular file. */
export function readInWorkTree(root: string, relativePath: string): string | null {
  const parts = relativePath.split('/');
  const dirs = checkDirs(root, parts.slice(0, -1), false);
  if (dirs === 'absent') return null;
  if (dirs !== null) throw new Error(dirs);
  const path = join(root, ...parts);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isMissing(error)) return null;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`${path} is a symlink; memd does not follow symlinks in a working tree`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_FILE_BYTES));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Replaces the file atomically; throws with the reason when a directory on the way or the file is a symlink. */
export function writeInWorkTree(root: string, relativePath: string, content: string, mode: number): string {
  const parts = relativePath.split('/');
  const dirs = checkDirs(root, parts.slice(0, -1), true);
  if (dirs !== null && dirs !== 'absent') throw new Error(dirs);
  readInWorkTree(root, relativePath); // throws for a symlink or a special file
  const path = join(root, ...parts);
  writeFileAtomic(path, content, mode);
  return path;
}
