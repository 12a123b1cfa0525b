/**
 * Finds transcripts under the projects dir and tells the ingestor when one changes. chokidar
 * (tree-watch.ts) reports changes, but it drops a second `change` of a path within 50 ms, so after
 * every event the file's size is re-checked until it has been quiet for longer than that. A slow
 * sweep compares the recent files (and now and then the whole tree, scan.ts) with the index as a
 * last resort (lost events, an inotify limit). The
 * projects dir itself is checked once a second: missing (polled for; its files are marked gone),
 * unreadable (degraded until it is readable again), replaced, or a failed chokidar all end in a
 * re-armed watcher (watch-health.ts), and status tells which state it is in. A projects dir that
 * resolves to `/`, or into /proc, /sys or /dev, is refused (not watched, not walked) until it no
 * longer does.
 */
import type Database from 'better-sqlite3';
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import type { WatcherStatus } from '../../shared/protocol/ingest.js';
import type { Logger } from '../log/logger.js';
import type { FoundFile, Ingestor } from './ingestor.js';
import { classifyTranscript } from './layout.js';
import { scanTranscripts, statOrNull } from './scan.js';
import { allFiles, filesAt } from './index-rows.js';
import { watchTree, type TreeWatch } from './tree-watch.js';
import { createRearmBackoff, MISSED_GRACE_MS, rootHealth, type RootHealth } from './watch-health.js';

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
/** How often the projects dir is checked: missing, unreadable or replaced (cheap: a stat and an access). */
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

/** A chokidar instance with the root's identity when it was made, when it became ready, and whether it failed since. */
interface Armed {
  watch: TreeWatch;
  dev: number;
  ino: number;
  at: number;
  readyAt: number | null;
  failed: boolean;
}

export interface Watcher {
  start(): void;
  stop(): Promise<void>;
}

export function createWatcher(deps: WatcherDeps): Watcher {
  const { ingestor, db, log, clock } = deps;
  const root = resolve(deps.root);
  const recheckMs = deps.recheckMs ?? DEFAULT_RECHECK_MS;
  const quietMs = deps.quietMs ?? DEFAULT_QUIET_MS;
  const sweepMs = deps.sweepMs ?? DEFAULT_SWEEP_MS;
  const rootPollMs = deps.rootPollMs ?? DEFAULT_ROOT_POLL_MS;

  let armed: Armed | null = null;
  let stopped = false;
  let healthTimer: NodeJS.Timeout | null = null;
  let sweepTimer: NodeJS.Timeout | null = null;
  let recheckTimer: NodeJS.Timeout | null = null;
  /** Recently changed files and until when to keep checking them. */
  const rechecks = new Map<string, number>();
  let state: WatcherStatus['state'] = 'stopped';
  let reason: string | null = null;
  let rearms = 0;
  let armedOnce = false;
  /** The next arm queues a backfill: the first one, and the first after the dir was missing (its files were marked gone). */
  let needsBackfill = true;
  const rearmBackoff = createRearmBackoff(clock);
  let rearmAt = 0;
  let sweepFailing = false;
  /** Periodic sweeps so far, and the files changed within RECENT_MS with their mtimes. */
  let sweeps = 0;
  const recent = new Map<string, number>();
  /** Arming and disarming run one at a time, in order (the health check, chokidar and the sweep all ask for them). */
  let transitions: Promise<void> = Promise.resolve();
  let transitionFailing = false;
  const serial = (step: () => Promise<void>): Promise<void> => {
    transitions = transitions.then(step).then(
      () => {
        transitionFailing = false;
      },
      (error: unknown) => {
        // The index failing under an arm (a corrupt database) is retried on the re-arm backoff, logged once.
        if (!transitionFailing) log.error('cannot watch transcripts', { error });
        transitionFailing = true;
        rearmAt = rearmBackoff.failed(clock());
      },
    );
    return transitions;
  };

  /** One log line per change of state; status always shows the current one. */
  function enter(next: WatcherStatus['state'], why: string | null, details: Record<string, unknown> = {}): void {
    const previous = state;
    const changed = next !== state || why !== reason;
    state = next;
    reason = why;
    ingestor.setWatcher({ state, reason, rearms });
    if (!changed) return;
    if (next === 'degraded') log.warn('watcher degraded; changes may be missed until it is re-armed', { root, reason: why, ...details });
    else if (next === 'refused') log.warn('projects dir refused; nothing under it is watched or read', { root, reason: why });
    else if (next === 'missing') log.info('projects dir does not exist; waiting for it', { root });
    else if (next === 'watching' && previous === 'degraded') log.info('watching transcripts again', { root, rearms });
  }

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
    recheckTimer = setTimeout(() => void recheck().catch((error: unknown) => log.warn('re-check failed', { error })), recheckMs);
  }

  function changed(path: string): void {
    if (classifyTranscript(root, path) === null) return;
    recent.set(path, clock());
    ingestor.touch(path);
    rechecks.set(path, clock() + quietMs);
    scheduleRecheck();
  }

  /** The armed watcher no longer sees everything: degraded, and re-armed after a backoff. */
  function failed(instance: Armed, why: string, details: Record<string, unknown> = {}): void {
    if (armed !== instance || instance.failed) return;
    instance.failed = true;
    rearmAt = rearmBackoff.failed(instance.at);
    enter('degraded', why, details);
  }

  /** The files to check: all of them (a full sweep), or the recent ones with what became of them. */
  async function sweepScope(full: boolean, now: number): Promise<{ found: (FoundFile & { mtimeMs: number })[]; scope: Set<string> | null }> {
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
   * Compares the tree with the index and touches every file that differs (or went). A difference
   * that no event reported, in a file changed after the watcher was ready, means it missed it.
   * The periodic sweep checks the files changed within RECENT_MS, and the whole tree every
   * FULL_SWEEP_EVERY-th time (and once a watcher is ready): a full sweep stats every transcript,
   * which at thousands of files was most of an idle daemon's CPU.
   */
  async function sweep(full: boolean): Promise<void> {
    const startedAt = clock();
    const instance = armed;
    if (!(await rootHealth(root)).ok) {
      await serial(checkRoot);
      return;
    }
    const { found, scope } = await sweepScope(full, startedAt);
    if (stopped) return;
    // A few recent files are looked up one by one; many (a history written just now) in one scan.
    const known = scope === null || scope.size > LOOKUPS_MAX ? allFiles(db) : filesAt(db, scope);
    const missed: string[] = [];
    const ready = instance?.readyAt ?? null;
    for (const file of found) {
      const row = known.get(file.path);
      known.delete(file.path);
      if (ingestor.isPending(file.path) || ingestor.isFailing(file.path)) continue;
      if (row !== undefined && !row.gone && row.ino === file.ino && row.size === file.size) continue;
      ingestor.touch(file.path);
      if (ready !== null && file.mtimeMs > ready && file.mtimeMs < startedAt - MISSED_GRACE_MS && !rechecks.has(file.path)) missed.push(file.path);
    }
    for (const [path, row] of known) if (!row.gone) ingestor.touch(path);
    if (instance !== null && missed.length > 0) failed(instance, `the watcher missed ${missed.length} change(s) that the sweep found`, { path: missed[0] });
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

  function armTree(queued: Promise<void>): TreeWatch {
    let watch: TreeWatch | null = null;
    const mine = () => (watch !== null && armed?.watch === watch ? armed : null);
    watch = watchTree(root, {
      changed,
      rootDropped() {
        const instance = mine();
        if (instance === null) return;
        // chokidar drops its watch of a root it could not read (chmod 000) for good, even once it is back.
        void serial(async () => {
          const health = await rootHealth(root);
          if (health.ok) failed(instance, 'chokidar dropped its watch of the projects dir');
          else await unhealthy(health);
        });
      },
      // Whatever changed between the start-up scan (or the last watcher) and the watches being in
      // place; after the backfill is queued, so that the sweep does not take its files out of size order.
      ready() {
        const instance = mine();
        if (instance === null) return;
        instance.readyAt = clock();
        // A re-armed watcher is trusted once it has walked the tree without a fault.
        if (!instance.failed && state === 'degraded') enter('watching', null);
        // A failed backfill is arm()'s to handle.
        void queued.then(
          () => runSweep(true),
          () => undefined,
        );
      },
      error(error) {
        const instance = mine();
        if (instance !== null) failed(instance, `the watcher failed: ${error instanceof Error ? error.message : String(error)}`, { error });
      },
    });
    return watch;
  }

  async function disarm(): Promise<void> {
    const instance = armed;
    armed = null;
    await instance?.watch.close();
  }

  async function unhealthy(health: Extract<RootHealth, { ok: false }>): Promise<void> {
    // A dir that flaps (unreadable, readable, unreadable) is re-armed on the same backoff.
    if (armed !== null && !armed.failed) rearmAt = rearmBackoff.failed(armed.at);
    await disarm();
    if (health.refused === true) {
      enter('refused', health.reason);
      return;
    }
    if (!health.missing) {
      enter('degraded', health.reason);
      return;
    }
    enter('missing', health.reason);
    if (needsBackfill) return;
    // Gone with the dir: its files are marked gone, and a dir that comes back is read from scratch.
    needsBackfill = true;
    for (const [path, row] of allFiles(db)) if (!row.gone) ingestor.touch(path);
  }

  async function arm(): Promise<void> {
    const health = await rootHealth(root);
    if (stopped) return;
    if (!health.ok) {
      await unhealthy(health);
      return;
    }
    if (armedOnce) rearms += 1;
    armedOnce = true;
    const queued = needsBackfill ? queueBackfill() : Promise.resolve();
    needsBackfill = false;
    // chokidar walks the tree after the start-up scan, not beside it: two walks at once are one
    // long stretch of stat callbacks that every client waits behind. Its ready sweep covers the gap.
    await queued.catch(() => undefined);
    if (stopped) return;
    armed = { watch: armTree(queued), dev: health.dev, ino: health.ino, at: clock(), readyAt: null, failed: false };
    // Degraded stays so until the new watcher is ready: one that fails again at once (a subdir
    // that stays unreadable) then costs no pair of log lines per re-arm.
    if (state === 'degraded') enter('degraded', reason);
    else enter('watching', null);
    const instance = armed;
    try {
      await queued;
    } catch (error) {
      // The index could not be read (the store fails): armed, but the backfill is owed; re-armed on the backoff.
      needsBackfill = true;
      failed(instance, `cannot queue the backfill: ${error instanceof Error ? error.message : String(error)}`, { error });
    }
    if (sweepTimer === null) scheduleSweep();
  }

  /** The health tick: (re-)arms, disarms or leaves the watcher as the projects dir and chokidar say. */
  async function checkRoot(): Promise<void> {
    if (stopped) return;
    const health = await rootHealth(root);
    if (stopped) return;
    if (!health.ok) {
      await unhealthy(health);
      return;
    }
    if (clock() < rearmAt) return;
    if (armed === null) return arm();
    if (armed.dev !== health.dev || armed.ino !== health.ino) {
      log.info('projects dir was replaced; re-arming the watcher', { root });
      await disarm();
      return arm();
    }
    if (armed.failed) {
      await disarm();
      return arm();
    }
  }

  async function queueBackfill(): Promise<void> {
    const found = await scanTranscripts(root);
    if (stopped) return;
    const onDisk = new Set(found.map((file) => file.path));
    const missing = [...allFiles(db).keys()].filter((path) => !onDisk.has(path));
    ingestor.backfill(found, missing);
    log.info('watching transcripts', { root, files: found.length });
  }

  return {
    start() {
      void serial(arm);
      // A tick is skipped while the last one waits (an arm may take a long scan): the queue stays short.
      let waiting = false;
      healthTimer = setInterval(() => {
        if (waiting) return;
        waiting = true;
        void serial(checkRoot).finally(() => (waiting = false));
      }, rootPollMs);
      healthTimer.unref();
    },
    async stop() {
      stopped = true;
      if (healthTimer !== null) clearInterval(healthTimer);
      for (const timer of [sweepTimer, recheckTimer]) if (timer !== null) clearTimeout(timer);
      healthTimer = sweepTimer = recheckTimer = null;
      rechecks.clear();
      await disarm();
      enter('stopped', null);
    },
  };
}
