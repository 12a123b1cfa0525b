/**
 * Finds transcripts under the projects dir and tells the ingestor when one changes. chokidar
 * reports changes, but it drops a second `change` of a path within 50 ms, so after every event
 * the file's size is re-checked until it has been quiet for longer than that. A slow sweep
 * compares the whole tree with the index as a last resort (lost events, an inotify limit). The
 * projects dir itself is checked once a second: missing (polled for; its files are marked gone),
 * unreadable (degraded until it is readable again), replaced, or a failed chokidar all end in a
 * re-armed watcher (watch-health.ts), and status tells which state it is in.
 */
import type Database from 'better-sqlite3';
import type { Dirent, Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { WatcherStatus } from '../../shared/protocol/results.js';
import type { Logger } from '../log/logger.js';
import type { FoundFile, Ingestor } from './ingestor.js';
import { classifyTranscript, isIgnoredPath, TRANSCRIPT_MAX_DEPTH } from './layout.js';
import { allFiles } from './index-rows.js';
import { watchTree, type TreeWatch } from './tree-watch.js';
import { createRearmBackoff, MISSED_GRACE_MS, rootHealth, type RootHealth } from './watch-health.js';

/** How often a recently changed file's size is checked: well inside chokidar's 50 ms throttle. */
export const DEFAULT_RECHECK_MS = 20;
/** A file is re-checked until it has not changed for this long (twice chokidar's throttle). */
export const DEFAULT_QUIET_MS = 100;
/** The safety-net sweep over the whole tree; rare, since it stats every transcript. */
export const DEFAULT_SWEEP_MS = 30_000;
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

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

/** Stats in flight at once: enough for the thread pool, few enough that requests interleave with their completions. */
const SCAN_CONCURRENCY = 16;

async function listDir(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Every transcript under `root` with its size, inode and mtime. A bounded number of calls at a
 * time: thousands of stats issued at once cost one long stretch of the event loop to issue and
 * another to settle, which every client would wait behind. Dirs are known from their dirent; a
 * symlink (or a file system without dirent types) is stat'ed, following it as before.
 */
export async function scanTranscripts(root: string): Promise<(FoundFile & { mtimeMs: number })[]> {
  const found: (FoundFile & { mtimeMs: number })[] = [];
  const work: { path: string; depth: number; kind: 'dir' | 'unknown' }[] = [{ path: root, depth: 1, kind: 'dir' }];
  const visitDir = async (dir: string, depth: number): Promise<void> => {
    for (const dirent of await listDir(dir)) {
      const path = join(dir, dirent.name);
      if (dirent.isDirectory()) {
        if (depth < TRANSCRIPT_MAX_DEPTH && !isIgnoredPath(root, path, true)) work.push({ path, depth: depth + 1, kind: 'dir' });
      } else if (dirent.isFile() ? classifyTranscript(root, path) !== null : !isIgnoredPath(root, path, undefined)) {
        work.push({ path, depth, kind: 'unknown' });
      }
    }
  };
  const visit = async (item: { path: string; depth: number; kind: 'dir' | 'unknown' }): Promise<void> => {
    if (item.kind === 'dir') return visitDir(item.path, item.depth);
    const stats = await statOrNull(item.path);
    if (stats === null || isIgnoredPath(root, item.path, stats.isDirectory())) return;
    if (stats.isDirectory()) {
      if (item.depth < TRANSCRIPT_MAX_DEPTH) work.push({ path: item.path, depth: item.depth + 1, kind: 'dir' });
    } else if (stats.isFile() && classifyTranscript(root, item.path) !== null) {
      found.push({ path: item.path, size: stats.size, ino: String(stats.ino), mtimeMs: stats.mtimeMs });
    }
  };
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let failure: unknown = null;
    const pump = (): void => {
      while (failure === null && active < SCAN_CONCURRENCY && work.length > 0) {
        active += 1;
        visit(work.pop() as (typeof work)[number]).then(
          () => {
            active -= 1;
            pump();
          },
          (error: unknown) => {
            active -= 1;
            failure ??= error;
            pump();
          },
        );
      }
      if (active === 0 && (failure !== null || work.length === 0)) {
        if (failure === null) resolve();
        else reject(failure as Error);
      }
    };
    pump();
  });
  return found;
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

  /**
   * Compares the tree with the index and touches every file that differs (or went). A difference
   * that no event reported, in a file changed after the watcher was ready, means it missed it.
   */
  async function sweep(): Promise<void> {
    const startedAt = clock();
    const instance = armed;
    if (!(await rootHealth(root)).ok) {
      await serial(checkRoot);
      return;
    }
    const found = await scanTranscripts(root);
    if (stopped) return;
    const known = allFiles(db);
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

  function runSweep(): Promise<void> {
    return sweep().then(
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
      void runSweep().finally(scheduleSweep);
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
        void queued.then(runSweep, () => undefined);
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
