/**
 * Finds transcripts under the projects dir and tells the ingestor when one changes. chokidar
 * reports changes, but it drops a second `change` of a path within 50 ms, so after every event
 * the file's size is re-checked until it has been quiet for longer than that. A slow sweep
 * compares the whole tree with the index as a last resort (lost events, an inotify limit). A
 * projects dir that does not exist yet is polled for.
 */
import type Database from 'better-sqlite3';
import chokidar, { type FSWatcher } from 'chokidar';
import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { FoundFile, Ingestor } from './ingestor.js';
import { classifyTranscript, isIgnoredPath, TRANSCRIPT_MAX_DEPTH } from './layout.js';
import { allFiles } from './store.js';

/** How often a recently changed file's size is checked: well inside chokidar's 50 ms throttle. */
export const DEFAULT_RECHECK_MS = 20;
/** A file is re-checked until it has not changed for this long (twice chokidar's throttle). */
export const DEFAULT_QUIET_MS = 100;
/** The safety-net sweep over the whole tree; rare, since it stats every transcript. */
export const DEFAULT_SWEEP_MS = 30_000;
/** How often a missing projects dir is looked for (cheap: one stat). */
export const DEFAULT_ROOT_POLL_MS = 1_000;

export interface WatcherDeps {
  root: string;
  ingestor: Ingestor;
  db: Database.Database;
  log: Logger;
  clock: () => number;
  recheckMs?: number;
  quietMs?: number;
  sweepMs?: number;
  rootPollMs?: number;
}

export interface Watcher {
  start(): void;
  stop(): Promise<void>;
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch {
    return [];
  }
}

/** Every transcript under `root` with its size and inode. */
export async function scanTranscripts(root: string): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    const names = await listDir(dir);
    await Promise.all(
      names.map(async (name) => {
        const path = join(dir, name);
        if (isIgnoredPath(root, path, undefined)) return;
        const stats = await statOrNull(path);
        if (stats === null || isIgnoredPath(root, path, stats.isDirectory())) return;
        if (stats.isDirectory()) {
          if (depth < TRANSCRIPT_MAX_DEPTH) await visit(path, depth + 1);
        } else if (stats.isFile() && classifyTranscript(root, path) !== null) {
          found.push({ path, size: stats.size, ino: String(stats.ino) });
        }
      }),
    );
  };
  await visit(root, 1);
  return found;
}

export function createWatcher(deps: WatcherDeps): Watcher {
  const { ingestor, db, log, clock } = deps;
  const root = resolve(deps.root);
  const recheckMs = deps.recheckMs ?? DEFAULT_RECHECK_MS;
  const quietMs = deps.quietMs ?? DEFAULT_QUIET_MS;
  const sweepMs = deps.sweepMs ?? DEFAULT_SWEEP_MS;
  const rootPollMs = deps.rootPollMs ?? DEFAULT_ROOT_POLL_MS;

  let fsWatcher: FSWatcher | null = null;
  let stopped = false;
  let rootTimer: NodeJS.Timeout | null = null;
  let sweepTimer: NodeJS.Timeout | null = null;
  let recheckTimer: NodeJS.Timeout | null = null;
  /** Recently changed files and until when to keep checking them. */
  const rechecks = new Map<string, number>();

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
    recheckTimer = setTimeout(() => void recheck().catch((error: unknown) => log.warn('re-check failed', { error })), recheckMs);
  }

  function changed(path: string): void {
    if (classifyTranscript(root, path) === null) return;
    ingestor.touch(path);
    rechecks.set(path, clock() + quietMs);
    scheduleRecheck();
  }

  /** Compares the tree with the index and touches every file that differs (or went). */
  async function sweep(): Promise<void> {
    const rootStats = await statOrNull(root);
    if (rootStats === null || !rootStats.isDirectory()) {
      if (fsWatcher !== null) await lostRoot();
      return;
    }
    const found = await scanTranscripts(root);
    if (stopped) return;
    const known = allFiles(db);
    for (const file of found) {
      const row = known.get(file.path);
      known.delete(file.path);
      if (ingestor.isPending(file.path)) continue;
      if (row === undefined || row.gone || row.ino !== file.ino || row.size !== file.size) ingestor.touch(file.path);
    }
    for (const [path, row] of known) if (!row.gone) ingestor.touch(path);
  }

  function scheduleSweep(): void {
    if (stopped) return;
    sweepTimer = setTimeout(() => {
      sweepTimer = null;
      void sweep()
        .catch((error: unknown) => log.warn('sweep failed', { error }))
        .finally(scheduleSweep);
    }, sweepMs);
    sweepTimer.unref();
  }

  function watchTree(queued: Promise<void>): FSWatcher {
    const watcher = chokidar.watch(root, {
      ignoreInitial: true,
      ignored: (path: string, stats?: Stats) => isIgnoredPath(root, path, stats === undefined ? undefined : stats.isDirectory()),
      // Levels of dirs below the root: <project>/<session>/subagents.
      depth: TRANSCRIPT_MAX_DEPTH - 1,
    });
    watcher.on('add', changed);
    watcher.on('change', changed);
    watcher.on('unlink', changed);
    watcher.on('unlinkDir', (path) => {
      if (resolve(path) === root) void lostRoot();
    });
    // Whatever changed between the start-up scan and the watches being in place; after the
    // backfill is queued, so that the sweep does not take its files out of size order.
    watcher.on('ready', () => {
      void queued.then(sweep).catch((error: unknown) => log.warn('sweep failed', { error }));
    });
    watcher.on('error', (error) => log.warn('watcher error', { error }));
    return watcher;
  }

  async function begin(): Promise<void> {
    if (stopped) return;
    const rootStats = await statOrNull(root);
    if (rootStats === null || !rootStats.isDirectory()) {
      pollForRoot();
      return;
    }
    const queued = queueBackfill();
    fsWatcher = watchTree(queued);
    ingestor.setWatching(true);
    await queued;
    if (sweepTimer === null) scheduleSweep();
  }

  async function queueBackfill(): Promise<void> {
    const found = await scanTranscripts(root);
    if (stopped) return;
    const onDisk = new Set(found.map((file) => file.path));
    const missing = [...allFiles(db).keys()].filter((path) => !onDisk.has(path));
    ingestor.backfill(found, missing);
    log.info('watching transcripts', { root, files: found.length });
  }

  function pollForRoot(): void {
    if (stopped || rootTimer !== null) return;
    log.info('projects dir does not exist; waiting for it', { root });
    rootTimer = setInterval(() => {
      void statOrNull(root).then((stats) => {
        if (stopped || rootTimer === null || stats === null || !stats.isDirectory()) return;
        clearInterval(rootTimer);
        rootTimer = null;
        void begin().catch((error: unknown) => log.error('cannot watch transcripts', { error }));
      });
    }, rootPollMs);
  }

  /** The projects dir went away: its files are marked gone, and it is waited for again. */
  async function lostRoot(): Promise<void> {
    // Both chokidar and the sweep may notice; the first one handles it.
    const watcher = fsWatcher;
    if (watcher === null) return;
    fsWatcher = null;
    ingestor.setWatching(false);
    await watcher.close();
    for (const [path, row] of allFiles(db)) if (!row.gone) ingestor.touch(path);
    pollForRoot();
  }

  return {
    start() {
      void begin().catch((error: unknown) => log.error('cannot watch transcripts', { error }));
    },
    async stop() {
      stopped = true;
      for (const timer of [rootTimer, sweepTimer, recheckTimer]) if (timer !== null) clearTimeout(timer);
      rootTimer = sweepTimer = recheckTimer = null;
      rechecks.clear();
      const watcher = fsWatcher;
      fsWatcher = null;
      ingestor.setWatching(false);
      await watcher?.close();
    },
  };
}
