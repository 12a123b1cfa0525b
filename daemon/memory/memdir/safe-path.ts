/**
 * Path safety for project and team memory files (DESIGN.md §6): every memdir read, write and
 * delete goes through here. Two passes, every time: the name is checked lexically and resolved
 * inside the memory dir; then the deepest existing ancestor is resolved with realpath
 * (realpath-deepest.ts) and the result must still be inside, and must itself be a valid memory
 * name (a symlink may not lead to the index, to `team/`, or to a hidden file). All I/O then happens
 * on that real path, so what was checked is what is touched; the last component is never followed
 * (rename replaces it, unlink removes it, reads open it with O_NOFOLLOW).
 *
 * Node has no openat/renameat, so a directory swapped for a symlink between the check and the
 * rename cannot be ruled out entirely; writes re-check just before renaming, which leaves a window
 * of one syscall instead of the whole write.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { checkMemoryName, quoteName } from '../../../shared/memdir/names.js';
import type { RpcError } from '../../../shared/protocol/errors.js';
import type { MemoryScope } from '../../../shared/protocol/memdir.js';
import { namingPath, PRIVATE_FILE_MODE } from '../../fs/atomic.js';
import { isInside } from '../../fs/inside.js';
import { isMissingPath } from '../../fs/read.js';
import { errorCode, PathReason, pathRejected } from './path-reason.js';
import { lstatIfPresent, realpathDeepestExisting, realpathOrLoop } from './realpath-deepest.js';

const MEMORY_FILE_EXTENSION = '.md';
/** Memory dirs hold the user's notes: owner only, like the files in them. */
const PRIVATE_DIR_MODE = 0o700;
/** Absent on Windows, where the lexical and realpath passes are all there is. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO planted where a memory should be must not hang the open; regular files ignore it. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const WRITE_TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

export interface SafePathOptions {
  /** Which memory dir `root` is; in 'private' (the default) the top-level `team` dir is reserved. */
  scope?: MemoryScope;
}

export interface WriteHooks {
  /** Tests only: runs after the temp file is written and flushed, before the re-check and rename. */
  beforeRename?: (paths: { temp: string; target: string }) => void | Promise<void>;
}

export interface WriteOptions extends SafePathOptions {
  mode?: number;
  hooks?: WriteHooks;
}

export interface ReadOptions extends SafePathOptions {
  /** Tests only: runs after the file is opened, before it is checked to be still in place. */
  hooks?: { afterOpen?: (target: string) => void | Promise<void> };
}

/**
 * First pass: the name's lexical check, then `<root>/<segments>.md` must stay inside `root`.
 * Returns that path (not yet resolved through symlinks).
 */
export function resolveInside(root: string, name: string, options: SafePathOptions = {}): string {
  const check = checkMemoryName(name, options.scope);
  if (!check.ok) throw pathRejected(check.reason, check.message);
  const base = resolve(root);
  const target = resolve(base, ...check.segments) + MEMORY_FILE_EXTENSION;
  if (!isInside(base, target, true) || target === base) {
    throw pathRejected(PathReason.OutsideRoot, `memory name ${quoteName(name)} resolves outside the memory dir`);
  }
  return target;
}

/** Second pass: the real target must be inside the real root and be a valid memory name there too. */
function checkRealTarget(trustedRoot: string, realTarget: string, name: string, scope: MemoryScope): void {
  const rel = relative(trustedRoot, realTarget);
  if (!isInside(trustedRoot, realTarget, true) || rel === '') {
    throw pathRejected(
      PathReason.SymlinkEscape,
      `memory name ${quoteName(name)} leads outside the memory dir through a symlink`,
    );
  }
  // NFC: HFS+ hands back decomposed names for what was created composed.
  const realName = rel.split(sep).join('/').slice(0, -MEMORY_FILE_EXTENSION.length).normalize('NFC');
  const check = checkMemoryName(realName, scope);
  if (!check.ok) {
    throw pathRejected(
      check.reason,
      `memory name ${quoteName(name)} leads through a symlink to ${quoteName(realName)}: ${check.message}`,
    );
  }
}

async function locate(trustedRoot: string, name: string, options: SafePathOptions): Promise<string> {
  const lexical = resolveInside(trustedRoot, name, options);
  const realDir = await realpathDeepestExisting(dirname(lexical));
  const realTarget = join(realDir, basename(lexical));
  checkRealTarget(trustedRoot, realTarget, name, options.scope ?? 'private');
  return realTarget;
}

/**
 * The trusted base for a memory dir: `root` with its own symlinks resolved, once (the root may be
 * reached through a link; what is inside it may not leave it). The dir must exist.
 */
export async function realRoot(root: string): Promise<string> {
  return realpathOrLoop(resolve(root));
}

/** The trusted base, or null when there is no memory dir yet. */
async function trustedRootIfPresent(root: string): Promise<string | null> {
  try {
    return await realRoot(root);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Both passes without touching the file: the real path the memory `name` is stored at (it may not
 * exist). For stat and the like; reads, writes and deletes go through the functions below.
 */
export async function validateInside(root: string, name: string, options: SafePathOptions = {}): Promise<string> {
  resolveInside(root, name, options);
  return locate(await realRoot(root), name, options);
}

/** Whether `path` still names the file open as `handle`, in a dir that is still inside the root. */
async function isStillInPlace(trustedRoot: string, handle: FileHandle, path: string): Promise<boolean> {
  let dirNow: string;
  try {
    dirNow = await realpath(dirname(path));
  } catch {
    return false;
  }
  const [ours, there] = await Promise.all([handle.stat(), lstat(path).catch(() => null)]);
  return isInside(trustedRoot, dirNow, true) && there !== null && there.dev === ours.dev && there.ino === ours.ino;
}

function swapped(name: string): RpcError {
  return pathRejected(
    PathReason.Swapped,
    `a dir on the path of memory ${quoteName(name)} was replaced while it was in use`,
  );
}

/** Creates the dirs between the real root and `dir` one level at a time, never through a link that leaves. */
async function makeDirsInside(trustedRoot: string, dir: string, name: string): Promise<void> {
  let current = trustedRoot;
  for (const level of relative(trustedRoot, dir)
    .split(sep)
    .filter((part) => part !== '')) {
    current = join(current, level);
    try {
      await mkdir(current, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    const stat = await lstat(current);
    // The second pass saw no link here, so one appeared since: follow it only if it stays inside.
    if (stat.isSymbolicLink()) {
      if (!isInside(trustedRoot, await realpathDeepestExisting(current), true)) {
        throw pathRejected(
          PathReason.SymlinkEscape,
          `memory name ${quoteName(name)} leads outside the memory dir through a symlink`,
        );
      }
    } else if (!stat.isDirectory()) {
      throw pathRejected(
        PathReason.NotADirectory,
        `memory name ${quoteName(name)} needs ${quoteName(level)} to be a dir, and it is a file`,
      );
    }
  }
}

/** Where an open file is now, when the platform can tell (Linux): found even if its dir was moved. */
async function currentPathOf(handle: FileHandle): Promise<string | null> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return null;
  }
}

/** Unlinks the temp file wherever it is now, but only a path that still is that very file. */
async function removeTemp(handle: FileHandle, temp: string): Promise<void> {
  try {
    const ours = await handle.stat();
    for (const candidate of [await currentPathOf(handle), temp]) {
      if (candidate === null) continue;
      const there = await lstat(candidate).catch(() => null);
      if (there !== null && there.dev === ours.dev && there.ino === ours.ino) {
        await unlink(candidate);
        return;
      }
    }
  } catch {
    // Cleanup must not hide the error that made it necessary.
  }
}

/** The rename itself survives a crash only once the dir is flushed. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeThenRename(
  trustedRoot: string,
  target: string,
  text: string,
  name: string,
  options: WriteOptions,
): Promise<void> {
  // Starts with '.', which no memory name may: a temp can never collide with or pose as a memory.
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, WRITE_TEMP_FLAGS, options.mode ?? PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await options.hooks?.beforeRename?.({ temp, target });
    if (!(await isStillInPlace(trustedRoot, handle, temp))) throw swapped(name);
    await rename(temp, target);
  } catch (error) {
    await removeTemp(handle, temp);
    const code = errorCode(error);
    if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST') {
      throw pathRejected(PathReason.NotAFile, `memory ${quoteName(name)} cannot be written: a dir is in its place`);
    }
    throw namingPath(error, target);
  } finally {
    await handle.close();
  }
  await syncDir(dirname(target));
}

/**
 * Writes the memory `name` under `root` (created if missing) whole or not at all: temp file in the
 * same dir (O_EXCL|O_NOFOLLOW), flushed, re-checked, renamed over the target. A symlink at the
 * target is replaced, never followed. Returns the real path written.
 */
export async function writeInside(
  root: string,
  name: string,
  text: string,
  options: WriteOptions = {},
): Promise<string> {
  resolveInside(root, name, options);
  await mkdir(root, { recursive: true, mode: PRIVATE_DIR_MODE });
  const trustedRoot = await realRoot(root);
  const target = await locate(trustedRoot, name, options);
  await makeDirsInside(trustedRoot, dirname(target), name);
  await writeThenRename(trustedRoot, target, text, name, options);
  return target;
}

/**
 * A writer that replaces the file (write a temp file, rename it over) changes the inode under a
 * reader just as a swapped dir would: the read is tried again this many times before the change is
 * taken for an attack. Each writer renames once per write, so a few tries outlast any honest one.
 */
const READ_ATTEMPTS = 8;

/** The memory's text, or null when there is none. A symlink in its place is refused, not followed. */
export async function readInside(root: string, name: string, options: ReadOptions = {}): Promise<string | null> {
  resolveInside(root, name, options);
  const trustedRoot = await trustedRootIfPresent(root);
  if (trustedRoot === null) return null;
  for (let attempt = 1; ; attempt++) {
    const read = await readOnce(trustedRoot, name, options);
    if (read !== SWAPPED) return read;
    if (attempt >= READ_ATTEMPTS) throw swapped(name);
  }
}

const SWAPPED = Symbol('swapped');

async function readOnce(
  trustedRoot: string,
  name: string,
  options: ReadOptions,
): Promise<string | null | typeof SWAPPED> {
  const target = await locate(trustedRoot, name, options);
  let handle: FileHandle;
  try {
    handle = await open(target, READ_FLAGS);
  } catch (error) {
    if (isMissingPath(error)) return null;
    const code = errorCode(error);
    // O_NOFOLLOW fails with ELOOP (EMLINK on FreeBSD) when the last component is a symlink.
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw pathRejected(
        PathReason.SymlinkTarget,
        `memory ${quoteName(name)} is a symlink; memory files are never read through one`,
      );
    }
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile())
      throw pathRejected(PathReason.NotAFile, `memory ${quoteName(name)} is not a regular file`);
    // Ties the path to the inode: a dir swapped in and out around the open is caught here.
    await options.hooks?.afterOpen?.(target);
    if (!(await isStillInPlace(trustedRoot, handle, target))) return SWAPPED;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Deletes the memory; false when there was none. A symlink in its place is removed, never followed. */
export async function removeInside(root: string, name: string, options: SafePathOptions = {}): Promise<boolean> {
  resolveInside(root, name, options);
  const trustedRoot = await trustedRootIfPresent(root);
  if (trustedRoot === null) return false;
  const target = await locate(trustedRoot, name, options);
  const stat = await lstatIfPresent(target);
  if (stat === null) return false;
  if (stat.isDirectory())
    throw pathRejected(PathReason.NotAFile, `memory ${quoteName(name)} is a dir, not a memory file`);
  try {
    await unlink(target);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  await syncDir(dirname(target));
  return true;
}
