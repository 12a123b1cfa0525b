/**
 * The watcher's checks behind chokidar (watcher.ts arms it): chokidar drops a second `change` of a
 * path within 50 ms, so after every event the file's size is re-checked until it has been quiet for
 * longer than that; and a slow sweep compares the recent files (and now and then the whole tree,
 * scan.ts) with the index as a last resort (lost events, an inotify limit). A difference the sweep
 * finds that no event reported, in a file changed after the watcher was ready, means the watcher
 * missed it: the watcher is told, and re-arms.
 */

import type { Stats } from 'node:fs';
import type Database from 'better-sqlite3';
import { classifyTranscript } from '../../shared/transcript/layout.js';
import type { Logger } from '../log/logger.js';
import { allFiles, filesAt } from './index-rows.js';
import type { Ingestor } from './ingestor.js';
import { scanTranscripts, statOrNull } from './scan.js';
import type { FoundFile } from './types.js';
import { MISSED_GRACE_MS, rootHealth } from './watch-health.js';

/** How often a recently changed file's size is checked: well inside chokidar's 50 ms throttle. */
export const DEFAULT_RECHECK_MS = 20;
/** A file is re-checked until it has not changed for this long (twice chokidar's throttle). */
export const DEFAULT_QUIET_MS = 100;
/** The safety-net sweep: the recent files each time, the whole tree every FULL_SWEEP_EVERY-th. */
export const DEFAULT_SWEEP_MS = 30_000;
/** A file changed within this long is checked at every sweep; the rest at every FULL_SWEEP_EVERY-th. */
export const RECENT_MS = 60 * 60_000;
/** Above this many recent files a sweep reads the whole files table once instead of a row per file (50,000 lookups took 0.5 s). */
const LOOKUPS_MAX = 1_000;
/** One sweep in this many stats the whole tree (every 5 minutes at the default 30 s). */
export const FULL_SWEEP_EVERY = 10;

/** The chokidar instance armed when a sweep starts, as the sweep sees it. */
export interface WatchedView {
  /** When it had walked the tree (null: not yet). */
  readyAt(): number | null;
  /** The sweep found changes it missed: it no longer sees everything. */
  missed(why: string, details: Record<string, unknown>): void;
}

export interface SweeperDeps {
  /** The projects dir, resolved. */
  root: string;
  ingestor: Ingestor;
  db: Database.Database;
  log: Logger;
  clock: () => number;
  recheckMs: number;
  quietMs: number;
  sweepMs: number;
  /** The instance armed now, or null. */
  watching(): WatchedView | null;
  /** The projects dir is not healthy at a sweep: the watcher checks it (and disarms) instead. */
  rootUnhealthy(): Promise<void>;
}

export interface Sweeper {
  /** chokidar reported a change: the file is read now and re-checked until it is quiet. */
  changed(path: string): void;
  /** One sweep now (`full`: the whole tree); a run of failures is logged once. */
  sweep(full: boolean): Promise<void>;
  /** Starts the periodic sweeps, unless one is scheduled. */
  start(): void;
  stop(): void;
}

export function createSweeper(deps: SweeperDeps): Sweeper {
  const { root, ingestor, db, log, clock, recheckMs, quietMs, sweepMs } = deps;
  let stopped = false;
  let sweepTimer: NodeJS.Timeout | null = null;
  let recheckTimer: NodeJS.Timeout | null = null;
  /** Recently changed files and until when to keep checking them. */
  const rechecks = new Map<string, number>();
  let sweepFailing = false;
  /** Periodic sweeps so far, and the files changed within RECENT_MS with their mtimes. */
  let sweeps = 0;
  const recent = new Map<string, number>();

  /** Whether the file differs from what the ingestor last read of it. */
  function differs(path: string, stats: Stats | null): boolean {
    const last = ingestor.lastRead(path);
    if (stats === null) return last !== undefined;
    return last === undefined || last.ino !== String(stats.ino) || last.size !== stats.size;
  }

  async function recheck(): Promise<void> {
    recheckTimer = null;
    const now = clock();
    await Promise.all(
      [...rechecks].map(async ([path, until]) => {
        // Its retry is the ingestor's (retries.ts): re-checking it would read it at every tick.
        if (ingestor.isFailing(path)) {
          rechecks.delete(path);
          return;
        }
        if (ingestor.isPending(path)) {
          // Quiet is counted from the end of the read: writes during it may have lost their event.
          rechecks.set(path, Math.max(until, now + quietMs));
          return;
        }
        const stats = await statOrNull(path);
        if (differs(path, stats)) {
          ingestor.touch(path);
          rechecks.set(path, now + quietMs);
        } else if (now >= until) {
          rechecks.delete(path);
        }
      }),
    );
    scheduleRecheck();
  }

  function scheduleRecheck(): void {
    if (stopped || recheckTimer !== null || rechecks.size === 0) return;
    recheckTimer = setTimeout(
      () => void recheck().catch((error: unknown) => log.warn('re-check failed', { error })),
      recheckMs,
    );
  }

  function changed(path: string): void {
    if (classifyTranscript(root, path) === null) return;
    recent.set(path, clock());
    ingestor.touch(path);
    rechecks.set(path, clock() + quietMs);
    scheduleRecheck();
  }

  /** The files to check: all of them (a full sweep), or the recent ones with what became of them. */
  async function sweepScope(
    full: boolean,
    now: number,
  ): Promise<{ found: (FoundFile & { mtimeMs: number })[]; scope: Set<string> | null }> {
    if (full) {
      const found = await scanTranscripts(root);
      recent.clear();
      for (const file of found) if (file.mtimeMs > now - RECENT_MS) recent.set(file.path, file.mtimeMs);
      return { found, scope: null };
    }
    const scope = new Set(recent.keys());
    const found: (FoundFile & { mtimeMs: number })[] = [];
    for (const path of scope) {
      const stats = await statOrNull(path);
      if (stats === null || !stats.isFile() || stats.mtimeMs <= now - RECENT_MS) recent.delete(path);
      if (stats?.isFile()) found.push({ path, size: stats.size, ino: String(stats.ino), mtimeMs: stats.mtimeMs });
    }
    return { found, scope };
  }

  /**
   * Compares the tree with the index and touches every file that differs (or went). The periodic
   * sweep checks the files changed within RECENT_MS, and the whole tree every FULL_SWEEP_EVERY-th
   * time (and once a watcher is ready): a full sweep stats every transcript, which at thousands of
   * files was most of an idle daemon's CPU.
   */
  async function sweep(full: boolean): Promise<void> {
    const startedAt = clock();
    const instance = deps.watching();
    if (!(await rootHealth(root)).ok) {
      await deps.rootUnhealthy();
      return;
    }
    const { found, scope } = await sweepScope(full, startedAt);
    if (stopped) return;
    // A few recent files are looked up one by one; many (a history written just now) in one scan.
    const known = scope === null || scope.size > LOOKUPS_MAX ? allFiles(db, 'local') : filesAt(db, scope);
    const missed: string[] = [];
    const ready = instance?.readyAt() ?? null;
    for (const file of found) {
      const row = known.get(file.path);
      known.delete(file.path);
      if (ingestor.isPending(file.path) || ingestor.isFailing(file.path)) continue;
      if (row !== undefined && !row.gone && row.ino === file.ino && row.size === file.size) continue;
      ingestor.touch(file.path);
      if (
        ready !== null &&
        file.mtimeMs > ready &&
        file.mtimeMs < startedAt - MISSED_GRACE_MS &&
        !rechecks.has(file.path)
      )
        missed.push(file.path);
    }
    for (const [path, row] of known) if (!row.gone) ingestor.touch(path);
    if (instance !== null && missed.length > 0)
      instance.missed(`the watcher missed ${missed.length} change(s) that the sweep found`, { path: missed[0] });
  }

  function runSweep(full: boolean): Promise<void> {
    return sweep(full).then(
      () => {
        if (sweepFailing) log.info('sweep works again', { root });
        sweepFailing = false;
      },
      (error: unknown) => {
        // Once per run of failures: a broken index would otherwise log one line per sweep.
        if (!sweepFailing) log.warn('sweep failed', { error });
        sweepFailing = true;
      },
    );
  }

  function scheduleSweep(): void {
    if (stopped) return;
    sweepTimer = setTimeout(() => {
      sweepTimer = null;
      sweeps += 1;
      void runSweep(sweeps % FULL_SWEEP_EVERY === 0).finally(scheduleSweep);
    }, sweepMs);
    sweepTimer.unref();
  }

  return {
    changed,
    sweep: runSweep,
    start() {
      if (sweepTimer === null) scheduleSweep();
    },
    stop() {
      stopped = true;
      for (const timer of [sweepTimer, recheckTimer]) if (timer !== null) clearTimeout(timer);
      sweepTimer = recheckTimer = null;
      rechecks.clear();
    },
  };
}
