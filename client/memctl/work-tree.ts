/**
 * The hooks' fallbacks without a daemon read and write the handoff in the user's working tree
 * themselves, by the daemon's rule (shared/work-tree.ts; daemon/fs/work-tree.ts is the daemon's
 * twin of this file): a plain relative path, nothing below the cwd followed if it is a symlink,
 * only regular files up to the cap read, nothing blocking on a FIFO, an existing file's mode kept.
 * Synchronous: a hook is a short-lived process with nothing else to do. A hook's umask is the
 * user's, so a docs/ made here needs no chmod after (the daemon's does).
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import {
  directoryRefusal,
  fileRefusal,
  isMissingPath,
  NEW_WORK_TREE_DIR_MODE,
  symlinkRefusal,
  type WorkTreeRead,
  workTreeParts,
} from '../../shared/work-tree.js';
import { writeFileAtomic } from './atomic-file.js';

/** Null when every directory on the way is a real one (made with `create`); else why not. */
function checkDirs(root: string, dirs: readonly string[], create: boolean): string | 'absent' | null {
  let at = root;
  for (const dir of dirs) {
    at = join(at, dir);
    let found;
    try {
      found = lstatSync(at);
    } catch (error) {
      if (!isMissingPath(error)) throw error;
      if (!create) return 'absent';
      try {
        mkdirSync(at, { mode: NEW_WORK_TREE_DIR_MODE });
      } catch (raced) {
        // Made meanwhile (by the daemon, another hook): checked below like any other.
        if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
      }
      found = lstatSync(at);
    }
    const refusal = directoryRefusal(at, found);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** The file's text, or why it was not read; never through a symlink, never from a FIFO or device. */
export function readInWorkTree(root: string, relativePath: string): WorkTreeRead {
  const parts = workTreeParts(relativePath);
  const dirs = checkDirs(root, parts.slice(0, -1), false);
  if (dirs === 'absent') return { kind: 'absent' };
  if (dirs !== null) return { kind: 'refused', reason: dirs };
  const path = join(root, ...parts);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isMissingPath(error)) return { kind: 'absent' };
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'refused', reason: symlinkRefusal(path) };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    const refusal = fileRefusal(path, stat);
    if (refusal !== null) return { kind: 'refused', reason: refusal };
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return { kind: 'file', text: buffer.subarray(0, read).toString('utf8'), mode: stat.mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}

/** The file's text; null when it is absent; throws with the reason when it is refused. */
export function readTextInWorkTree(root: string, relativePath: string): string | null {
  const read = readInWorkTree(root, relativePath);
  if (read.kind === 'refused') throw new Error(read.reason);
  return read.kind === 'file' ? read.text : null;
}

/**
 * Replaces (or creates) the file atomically, keeping an existing file's mode and giving a new one
 * `newMode`; throws with the reason when a directory on the way or the file is a symlink or not
 * what it should be, and nothing is written then.
 */
export function writeInWorkTree(root: string, relativePath: string, content: string, newMode: number): string {
  const parts = workTreeParts(relativePath);
  const dirs = checkDirs(root, parts.slice(0, -1), true);
  if (dirs !== null && dirs !== 'absent') throw new Error(dirs);
  const current = readInWorkTree(root, relativePath);
  if (current.kind === 'refused') throw new Error(current.reason);
  const path = join(root, ...parts);
  writeFileAtomic(path, content, current.kind === 'file' ? current.mode : newMode);
  return path;
}
