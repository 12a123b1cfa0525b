/**
 * Is the transcript watcher still seeing changes? chokidar reports some faults (an `error` event,
 * the root's `unlinkDir`) and misses others: once the projects dir was briefly unreadable, its
 * watches were gone for good while the daemon still said `watching` (issue 13 item 9). So the
 * watcher checks the projects dir itself, once a second (a stat and an access), and re-arms
 * chokidar (closes it and makes it again) when the dir is readable again, was replaced (another
 * inode), after chokidar failed, or after the sweep found changes that no event reported. Re-arms
 * back off, since each one walks the tree again.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
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

export type RootHealth = { ok: true; dev: number; ino: number } | { ok: false; missing: boolean; reason: string };

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
  try {
    await access(root, constants.R_OK | constants.X_OK);
  } catch (error) {
    return { ok: false, missing: false, reason: `the projects dir is unreadable (${codeOf(error)})` };
  }
  return { ok: true, dev: stats.dev, ino: stats.ino };
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
