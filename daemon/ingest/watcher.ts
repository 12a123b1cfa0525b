/**
 * Finds transcripts under the projects dir and tells the ingestor when one changes: chokidar
 * (tree-watch.ts) reports changes, and the sweeper (sweeper.ts) re-checks changed files until they
 * are quiet and sweeps the tree for what chokidar missed. This file arms chokidar and keeps it
 * armed: the projects dir is checked once a second: missing (polled for; its files are marked
 * gone), unreadable (degraded until it is readable again), replaced, or a failed chokidar all end
 * in a re-armed watcher (watch-health.ts), and status tells which state it is in. A projects dir
 * that resolves to `/`, or into /proc, /sys or /dev, is refused (not watched, not walked) until it
 * no longer does.
 */

import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { WatcherStatus } from '../../shared/protocol/ingest.js';
import type { Logger } from '../log/logger.js';
import { allFiles } from './index-rows.js';
import type { Ingestor } from './ingestor.js';
import { scanTranscripts } from './scan.js';
import { createSweeper, DEFAULT_QUIET_MS, DEFAULT_RECHECK_MS, DEFAULT_SWEEP_MS } from './sweeper.js';
import { type TreeWatch, watchTree } from './tree-watch.js';
import { createRearmBackoff, type RootHealth, rootHealth, rootUnreadable } from './watch-health.js';

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
  const rootPollMs = deps.rootPollMs ?? DEFAULT_ROOT_POLL_MS;

  let armed: Armed | null = null;
  let stopped = false;
  let healthTimer: NodeJS.Timeout | null = null;
  let state: WatcherStatus['state'] = 'stopped';
  let reason: string | null = null;
  let rearms = 0;
  let armedOnce = false;
  /** The next arm queues a backfill: the first one, and the first after the dir was missing (its files were marked gone). */
  let needsBackfill = true;
  const rearmBackoff = createRearmBackoff(clock);
  let rearmAt = 0;
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
    if (next === 'degraded')
      log.warn('watcher degraded; changes may be missed until it is re-armed', { root, reason: why, ...details });
    else if (next === 'refused')
      log.warn('projects dir refused; nothing under it is watched or read', { root, reason: why });
    else if (next === 'missing') log.info('projects dir does not exist; waiting for it', { root });
    else if (next === 'watching' && previous === 'degraded') log.info('watching transcripts again', { root, rearms });
  }

  /** The armed watcher no longer sees everything: degraded, and re-armed after a backoff. */
  function failed(instance: Armed, why: string, details: Record<string, unknown> = {}): void {
    if (armed !== instance || instance.failed) return;
    instance.failed = true;
    rearmAt = rearmBackoff.failed(instance.at);
    enter('degraded', why, details);
  }

  const sweeper = createSweeper({
    root,
    ingestor,
    db,
    log,
    clock,
    recheckMs: deps.recheckMs ?? DEFAULT_RECHECK_MS,
    quietMs: deps.quietMs ?? DEFAULT_QUIET_MS,
    sweepMs: deps.sweepMs ?? DEFAULT_SWEEP_MS,
    watching() {
      const instance = armed;
      return instance === null
        ? null
        : { readyAt: () => instance.readyAt, missed: (why, details) => failed(instance, why, details) };
    },
    rootUnhealthy: () => serial(checkRoot),
  });

  function armTree(queued: Promise<void>): TreeWatch {
    let watch: TreeWatch | null = null;
    const mine = () => (watch !== null && armed?.watch === watch ? armed : null);
    watch = watchTree(root, {
      changed: sweeper.changed,
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
          () => sweeper.sweep(true),
          () => undefined,
        );
      },
      error(error) {
        const instance = mine();
        // A fault from a projects dir that just became unreadable is reported as that: the cause a
        // user can act on, and the same whether chokidar or the health check saw it first.
        if (instance !== null)
          failed(
            instance,
            rootUnreadable(root) ?? `the watcher failed: ${error instanceof Error ? error.message : String(error)}`,
            { error },
          );
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
    for (const [path, row] of allFiles(db, 'local')) if (!row.gone) ingestor.touch(path);
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
      failed(instance, `cannot queue the backfill: ${error instanceof Error ? error.message : String(error)}`, {
        error,
      });
    }
    sweeper.start();
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
    const missing = [...allFiles(db, 'local').keys()].filter((path) => !onDisk.has(path));
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
      healthTimer = null;
      sweeper.stop();
      await disarm();
      enter('stopped', null);
    },
  };
}
