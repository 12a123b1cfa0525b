/**
 * Is the transcript watcher still seeing changes? chokidar reports some faults (an `error` event,
 * the root's `unlinkDir`) and misses others: once the projects dir was briefly unreadable, its
 * watches were gone for good while the daemon still said `watching` (issue 13 item 9). So the
 * watcher checks the projects dir itself, once a second (a stat and an access), and re-arms
 * chokidar (closes it and makes it again) when the dir is readable again, was replaced (another
 * inode), after chokidar failed, or after the sweep found changes that no event reported. Re-arms
 * back off, since each one walks the tree again.
 */
import { accessSync, constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { isMissingPath } from '../fs/read.js';

/** The first re-arm after a watcher error: a brief fault is over by then. */
export const REARM_FIRST_MS = 1_000;
/**
 * The longest wait between re-arms: each walks and stats the whole tree again. A watcher that
 * stayed armed this long without a fault starts again from REARM_FIRST_MS.
 */
export const REARM_MAX_MS = 5 * 60_000;
/**
 * A change the sweep finds counts as missed by the watcher only when it is older than this (its
 * event and the re-check after it have long been handled) and newer than the watcher's `ready`.
 */
export const MISSED_GRACE_MS = 2_000;

/**
 * Trees a projects dir must never be (a symlink swapped in for it, or a MEMD_PROJECTS_DIR typo):
 * watching `/` walks the whole machine (150-290 ms of the event loop at each re-arm, measured),
 * and /proc, /sys and /dev hold files that never end, block, or change on every read.
 */
const SYSTEM_TREES = ['/proc', '/sys', '/dev'];

/** Why memd refuses to watch a projects dir whose real path is `real`, or null when it does not. */
export function systemTreeReason(real: string): string | null {
  if (real === '/') return 'the projects dir resolves to / (the whole file system); memd does not watch it';
  const tree = SYSTEM_TREES.find((candidate) => real === candidate || real.startsWith(`${candidate}/`));
  return tree === undefined
    ? null
    : `the projects dir resolves to ${real}, inside ${tree}; memd does not watch system trees`;
}

/** `refused`: a system tree (systemTreeReason), never watched nor walked while it stays one. */
export type RootHealth =
  | { ok: true; dev: number; ino: number }
  | { ok: false; missing: boolean; refused?: boolean; reason: string };

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : String(error);
}

/** Whether the projects dir is there, a directory, and readable and searchable by this process. */
export async function rootHealth(root: string): Promise<RootHealth> {
  let stats;
  try {
    stats = await stat(root);
  } catch (error) {
    if (isMissingPath(error)) return { ok: false, missing: true, reason: 'the projects dir does not exist' };
    return { ok: false, missing: false, reason: `the projects dir cannot be looked at (${codeOf(error)})` };
  }
  if (!stats.isDirectory()) return { ok: false, missing: true, reason: 'the projects dir is not a directory' };
  const refused = systemTreeReason(await realpath(root).catch(() => root));
  if (refused !== null) return { ok: false, missing: false, refused: true, reason: refused };
  try {
    await access(root, constants.R_OK | constants.X_OK);
  } catch (error) {
    return { ok: false, missing: false, reason: unreadable(error) };
  }
  return { ok: true, dev: stats.dev, ino: stats.ino };
}

const unreadable = (error: unknown) => `the projects dir is unreadable (${codeOf(error)})`;

/**
 * Why the projects dir cannot be read or searched now, or null when it can (or is gone: the
 * health check says so). Synchronous, for a watcher fault that must be named as it happens.
 */
export function rootUnreadable(root: string): string | null {
  try {
    accessSync(root, constants.R_OK | constants.X_OK);
    return null;
  } catch (error) {
    return isMissingPath(error) ? null : unreadable(error);
  }
}

/** Backoff of re-arms: the failures of watchers that did not stay healthy for REARM_MAX_MS in a row. */
export function createRearmBackoff(clock: () => number): { failed(armedAt: number): number } {
  let failures = 0;
  return {
    /** The watcher armed at `armedAt` failed; returns when the next re-arm may be. */
    failed(armedAt) {
      const now = clock();
      failures = now - armedAt >= REARM_MAX_MS ? 1 : failures + 1;
      return now + Math.min(REARM_MAX_MS, REARM_FIRST_MS * 2 ** (failures - 1));
    },
  };
}
