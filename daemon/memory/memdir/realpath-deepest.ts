/**
 * A path with every symlink resolved even where its end does not exist yet (a memory about to be
 * written): the second pass of safe-path.ts checks this real path, not the one asked for. Dangling
 * links are followed by hand as the kernel would on create, and loops are refused (PathReason).
 */
import type { Stats } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { quoteName } from '../../../shared/memdir/names.js';
import type { RpcError } from '../../../shared/protocol/errors.js';
import { isMissingPath } from '../../fs/read.js';
import { errorCode, PathReason, pathRejected } from './path-reason.js';

/** Linux's MAXSYMLINKS: following more dangling links than the kernel would is a loop. */
const MAX_SYMLINK_HOPS = 40;

function symlinkLoop(path: string): RpcError {
  return pathRejected(PathReason.SymlinkLoop, `symlink loop at ${quoteName(path)}`);
}

/** lstat that answers null when the path (or a dir on it) is missing; loops are rejected. */
export async function lstatIfPresent(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isMissingPath(error)) return null;
    const code = errorCode(error);
    if (code === 'ELOOP') throw symlinkLoop(path);
    throw error;
  }
}

/** realpath, with a loop refused as the path's own fault rather than thrown as an fs error. */
export async function realpathOrLoop(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw symlinkLoop(path);
    throw error;
  }
}

/** A tail climbing with `..` may land back on existing links, so its join is resolved once more. */
async function appendTail(base: string, missing: string[], hops: number): Promise<string> {
  const joined = join(base, ...missing);
  return missing.includes('..') ? resolveDeepest(joined, hops + 1) : joined;
}

async function resolveDeepest(path: string, hops: number): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw symlinkLoop(path);
  // Kept as given, not normalized: `link/..` must go where the kernel takes it. Only a trailing
  // slash goes, since it would make lstat follow a final symlink.
  let existing = path.replace(/\/+$/, '') || '/';
  const missing: string[] = [];
  while ((await lstatIfPresent(existing)) === null) {
    const parent = dirname(existing);
    if (parent === existing) throw new Error(`no existing ancestor of ${path}`);
    missing.unshift(basename(existing));
    existing = parent;
  }
  const real = await realpathOrLoop(existing).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  });
  // Nothing named in `missing` exists, so (but for `..`) nothing there is a symlink: joining is exact.
  if (real !== null) return appendTail(real, missing, hops);
  // lstat saw it but realpath cannot reach its end: a dangling symlink. Follow it by hand, so that
  // the tail lands where a later mkdir or create would put it, and is checked there.
  const target = await readlink(existing);
  const from = isAbsolute(target) ? target : `${await realpathOrLoop(dirname(existing))}${sep}${target}`;
  return appendTail(await resolveDeepest(from, hops + 1), missing, hops + 1);
}

/**
 * `path` with every symlink resolved, even when its end does not exist yet: the deepest existing
 * ancestor is resolved with realpath (dangling links followed by hand) and the missing tail put back.
 */
export async function realpathDeepestExisting(path: string): Promise<string> {
  return resolveDeepest(isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`, 0);
}
