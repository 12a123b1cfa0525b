/**
 * Decides which transcript file is read next and runs up to LANES passes at once (lanes.ts), never
 * two over the same file, so memory stays at a few chunks plus one line per lane. Files that changed (watcher events)
 * go before the backfill of files found at start, which runs newest first; a long pass gives
 * way between chunks to waiting files and resumes later from its committed offset. Events go out
 * only after the transaction that recorded them commits. The backfill's progress is progress.ts's.
 */
import type Database from 'better-sqlite3';
import type { IngestProgress, IngestStatus, WatcherStatus } from '../../shared/protocol/ingest.js';
import type { TranscriptFile } from '../../shared/transcript/layout.js';
import { type TranscriptRoots, transcriptRoots } from '../../shared/transcript/layout.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import { createFailedEvents } from './failed-events.js';
import { createGroupChoice } from './group-choice.js';
import { allFiles, createIndexTotals, readToEnd } from './index-rows.js';
import { createLanes } from './lanes.js';
import { createInlineParser, createWorkerParser, type LineParser } from './parser.js';
import { createPassChoices } from './pass-choices.js';
import { PassQueue } from './pass-queue.js';
import { createBackfillProgress } from './progress.js';
import { createRetries, unreadFault } from './retries.js';
import {
  createTailer,
  DEFAULT_CARRY_BUDGET_BYTES,
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  type Tailer,
} from './tailer.js';
import type { CommitEvent, CommitObserver, Ingestor, PassResult, TailerCounters } from './types.js';

export type { Ingestor } from './types.js';

/**
 * Passes run at once, sharing one parse worker: while the main thread commits one file's rows,
 * the worker parses the others' chunks instead of waiting. Four, not two: with two, each thread
 * sat idle a third of a backfill waiting for the other (a file's open, stat and close between
 * passes, a long commit with one lane's chunks parsed); four took a 942 MB backfill from
 * ~7.9 s to ~7.0 s (medians of 4 runs each), for 8 MB more of read buffers.
 */
export const DEFAULT_LANES = 4;

/** A changed file read for this long lets other changed files go first (keeps event latency low). */
export const DEFAULT_LIVE_SLICE_BYTES = 4 * 1024 * 1024;

export interface IngestorDeps {
  db: Database.Database;
  bus: Bus;
  log: Logger;
  clock: () => number;
  projectsDir: string;
  /** Where transcripts are read from: the projects dir alone unless set (issue 35 adds other machines'). */
  roots?: TranscriptRoots;
  /** Called after a pass over a file changed the index (rows committed, or the file gone). */
  onSessionsChanged(sessionIds: string[]): void;
  /** Called once, when every file found at start has been read (after its onSessionsChanged). */
  onBackfillDone?(): void;
  /** Called each time a later backfill has been read whole: the index is live again. */
  onBacklogDrained?(): void;
  /** Keeps what derives from the rows in each commit's transaction (the sessions' aggregates). */
  observer?: CommitObserver;
  chunkBytes?: number;
  maxLineBytes?: number;
  carryBudgetBytes?: number;
  commitBytes?: number;
  liveSliceBytes?: number;
  /** pass-choices.ts DEFAULT_DEFER_SEARCH_BYTES unless set. */
  deferSearchBytes?: number;
  /** Parse in a worker thread (the default), beside SQLite on the main thread; false parses inline. */
  parseInWorker?: boolean;
  lanes?: number;
  /** A parser made by createIngestParser beforehand (its worker boots meanwhile); the ingestor owns it. */
  parser?: LineParser;
}

/** The parser an ingestor with these settings uses; made early, its worker boots while the daemon starts. */
export function createIngestParser(
  deps: Pick<IngestorDeps, 'lanes' | 'chunkBytes' | 'maxLineBytes' | 'carryBudgetBytes' | 'parseInWorker'>,
): LineParser {
  const options = {
    lanes: deps.lanes ?? DEFAULT_LANES,
    slotBytes: deps.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    maxLineBytes: deps.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    carryBudgetBytes: deps.carryBudgetBytes ?? DEFAULT_CARRY_BUDGET_BYTES,
  };
  return deps.parseInWorker === false ? createInlineParser(options) : createWorkerParser(options);
}

export function createIngestor(deps: IngestorDeps): Ingestor {
  const { db, bus, log, clock } = deps;
  const roots = deps.roots ?? transcriptRoots(deps.projectsDir);
  const liveSlice = deps.liveSliceBytes ?? DEFAULT_LIVE_SLICE_BYTES;

  const queue = new PassQueue();
  const lastReads = new Map<string, { ino: string; size: number }>();
  const choices = createPassChoices(deps.deferSearchBytes);
  const progress = createBackfillProgress({
    log,
    clock,
    onBackfillDone: () => {
      choices.backfillDone();
      deps.onBackfillDone?.();
    },
    onDrained: () => {
      choices.backfillDone();
      deps.onBacklogDrained?.();
    },
  });
  let watcher: WatcherStatus = { state: 'stopped', reason: null, since: null, rearms: 0 };
  /** Paths being read, and those that changed meanwhile (read again once their pass ends). */
  const running = new Set<string>();
  const rerun = new Set<string>();
  const laneCount = deps.lanes ?? DEFAULT_LANES;
  let stopped = false;
  let lastError: IngestStatus['lastError'] = null;

  const totals = createIndexTotals(db, clock);

  const reportFailed = createFailedEvents(bus, log);
  const onCommit = (event: CommitEvent) => {
    totals.stale();
    progress.committed(event.file.path, event.bytesRead);
    reportFailed(event);
  };
  const parser = deps.parser ?? createIngestParser(deps);
  if (parser.lanes !== laneCount) throw new Error(`the parser has ${parser.lanes} lanes, the ingestor ${laneCount}`);
  const counters: TailerCounters = { bytesRead: 0, checkBytesRead: 0 };
  const groups = createGroupChoice(parser.slotBytes);
  const tailers = Array.from({ length: laneCount }, (_, lane) =>
    createTailer({
      db,
      log,
      clock,
      onCommit,
      observer: deps.observer,
      commitBytes: deps.commitBytes,
      parser: { parser, lane },
      counters,
      rootOf: roots.rootOf,
    }),
  );

  const retries = createRetries({
    log,
    clock,
    onDue(paths) {
      for (const path of paths) {
        if (running.has(path)) rerun.add(path);
        else queue.addLive(path);
      }
      lanes.kick();
    },
    onStoreDue: () => lanes.kick(),
  });

  const isIdle = () => running.size === 0 && queue.size === 0;

  /** While the store fails, no pass starts before its retry, and then one lane probes it alone. */
  const mayStart = (lane: number) => {
    const gate = retries.storeGate();
    return gate === 'open' || (gate === 'probe' && lane === 0);
  };

  const lanes = createLanes({
    count: laneCount,
    queue,
    stopped: () => stopped,
    mayStart,
    async run(lane, next) {
      // While the store fails, passes one at a time: the probe is one file's.
      const group =
        next.fromBacklog && retries.storeGate() === 'open' ? groups.groupWith(next.path, queue) : [next.path];
      if (group.length > 1) await runGroup(lane, group);
      else await runPass(lane, next.path, next.fromBacklog);
    },
    isIdle,
  });

  function finishBackfill(path: string): void {
    groups.forget(path);
    progress.finish(path);
  }

  function notifySessions(sessionId: string): void {
    totals.stale();
    try {
      deps.onSessionsChanged([sessionId]);
    } catch (error) {
      log.error('onSessionsChanged failed', { sessionId, error });
    }
  }

  /** What a pass's outcome tells the backoff; before endRun looks at it, so a change during the pass does not skip it. */
  function passed(path: string, result: PassResult): void {
    const unread = unreadFault(result.outcome);
    if (unread === null) retries.succeeded(path, result.changed);
    else retries.failedWith(path, unread);
  }

  function endRun(path: string): void {
    running.delete(path);
    if (rerun.delete(path) && !stopped) {
      // A change during a pass that failed does not skip the backoff (it may bring it forward).
      if (retries.isWaiting(path)) retries.changed(path);
      else queue.addLive(path);
    }
  }

  /** After a pass ran to its end or gave way: what was read, who is told, what is read next. */
  function settled(path: string, target: TranscriptFile, fromBacklog: boolean, result: PassResult): void {
    if (result.end !== null) lastReads.set(path, result.end);
    else if (result.outcome !== 'yielded') lastReads.delete(path);
    // A pass may add a file's row without committing lines (an empty file): totals are stale then too.
    totals.stale();
    // Before the backfill is marked done: the last backfilled file is history, not a live change.
    if (result.changed) notifySessions(result.sessionId);
    // A 2.0.x agent file listed under its own stem until its entries named the session.
    if (result.changed && result.sessionId !== target.sessionId) notifySessions(target.sessionId);
    if (result.outcome === 'yielded') {
      if (!stopped) queue.requeue(path, fromBacklog);
    } else {
      finishBackfill(path);
    }
  }

  async function runPass(lane: number, path: string, fromBacklog: boolean): Promise<void> {
    const target = roots.classify(path);
    if (target === null) return;
    running.add(path);
    rerun.delete(path);
    // Backfill gives way to any changed file at once; a changed file gives way after a slice.
    const shouldYield = (bytes: number) => stopped || (queue.hasLive && (fromBacklog || bytes >= liveSlice));
    let result: PassResult | null = null;
    try {
      result = await (tailers[lane] as Tailer).pass(target, { shouldYield, ...choices.forPass(fromBacklog) });
      passed(path, result);
    } catch (error) {
      totals.stale();
      lastError = { path, message: (error as Error).message, at: new Date(clock()).toISOString() };
      // One unreadable file must not stop ingest of the others, nor be read again at once (retries.ts).
      // A store fault is no file's: the file waits in the queue while ingest pauses.
      if (retries.failed(path, error) === 'store') {
        if (!stopped) queue.requeue(path, fromBacklog);
      } else {
        finishBackfill(path);
      }
    } finally {
      endRun(path);
    }
    if (result !== null) settled(path, target, fromBacklog, result);
  }

  /**
   * A group pass over small backfill files; a file it left, and every file of a group that
   * failed, is read again by a pass of its own (which handles whatever the group did not).
   */
  async function runGroup(lane: number, paths: readonly string[]): Promise<void> {
    const targets = paths.map((path) => roots.classify(path)).filter((target) => target !== null);
    for (const { path } of targets) {
      running.add(path);
      rerun.delete(path);
    }
    let results: (PassResult | null)[] | null = null;
    try {
      results = await (tailers[lane] as Tailer).passGroup(targets, choices.forPass(true));
    } catch (error) {
      log.debug('a group pass failed; its files are read one by one', { files: targets.length, error });
    }
    const left: string[] = [];
    targets.forEach(({ path }, at) => {
      const result = results?.[at] ?? null;
      if (result === null) left.push(path);
      else passed(path, result);
    });
    for (const path of left) groups.single(path);
    // In reverse, so that they keep their order at the head of the backlog.
    for (const path of left.toReversed()) if (!stopped) queue.requeue(path, true);
    for (const { path } of targets) endRun(path);
    targets.forEach((target, at) => {
      const result = results?.[at] ?? null;
      if (result !== null) settled(target.path, target, true, result);
    });
  }

  const currentProgress = (): IngestProgress =>
    progress.snapshot(queue.size + running.size, watcher.state === 'watching');

  return {
    touch(path) {
      if (stopped || roots.classify(path) === null) return;
      // A failing file is read again when its backoff says, not at every event.
      if (retries.isWaiting(path)) {
        retries.changed(path);
        return;
      }
      if (running.has(path)) {
        rerun.add(path);
        return;
      }
      // A changed file waiting for its backfill turn is read now instead.
      queue.addLive(path);
      lanes.kick();
    },
    backfill(files, missing, comingBytes = 0) {
      if (stopped) return;
      progress.begin();
      const known = allFiles(db);
      const sizes = new Map<string, number>();
      const mtimes = new Map<string, number>();
      const taken = (path: string) => sizes.has(path) || queue.isLive(path) || running.has(path) || progress.has(path);
      const add = (path: string, size: number, left: number, mtimeMs = Number.POSITIVE_INFINITY) => {
        if (taken(path)) return;
        sizes.set(path, size);
        mtimes.set(path, mtimeMs);
        progress.add(path, left);
      };
      for (const path of missing) {
        if (known.get(path)?.gone === false) add(path, 0, 0);
      }
      let neverRead = 0;
      for (const file of files) {
        if (roots.classify(file.path) === null) continue;
        const row = known.get(file.path);
        if (row !== undefined && readToEnd(row, file)) {
          // Read to its end before and not written since: done without a pass (no open, no read).
          if (taken(file.path)) continue;
          lastReads.set(file.path, { ino: file.ino, size: file.size });
          progress.addDone();
          continue;
        }
        const unchanged = row !== undefined && row.ino === file.ino && file.size >= row.committedOffset;
        const left = unchanged ? file.size - row.committedOffset : file.size;
        if (row === undefined && !taken(file.path)) neverRead += file.size;
        if (!taken(file.path)) groups.found(file.path, left);
        add(file.path, file.size, left, file.mtimeMs);
      }
      choices.backfillFound(Math.max(neverRead, comingBytes));
      // Newest first: the sessions a user works in show up in their first `memctl status`, and
      // history fills in behind them. Gone files (no mtime) first, as they cost nothing.
      const mtime = (path: string) => mtimes.get(path) ?? 0;
      queue.addBackfill(
        sizes.keys(),
        (a, b) => mtime(b) - mtime(a) || (sizes.get(a) ?? 0) - (sizes.get(b) ?? 0) || (a < b ? -1 : 1),
      );
      // Nothing to read: done at once.
      progress.doneIfEmpty();
      lanes.kick();
    },
    holdBackfill: () => progress.hold(),
    lastRead: (path) => lastReads.get(path),
    isPending: (path) => running.has(path) || queue.has(path),
    // While the store fails every file is: re-checks and sweeps would only queue what waits already.
    isFailing: (path) => retries.isFailing(path) || retries.storeGate() === 'closed',
    setWatcher(next) {
      const since =
        next.state === watcher.state && next.reason === watcher.reason
          ? watcher.since
          : new Date(clock()).toISOString();
      watcher = { ...next, since };
    },
    progress: currentProgress,
    status() {
      const index = totals.read(running.size > 0);
      return {
        progress: currentProgress(),
        stats: {
          ...index.stats,
          bytesReadThisRun: counters.bytesRead,
          checkBytesReadThisRun: counters.checkBytesRead,
        },
        recentBadLines: index.recentBadLines,
        lastError,
        ...retries.status(),
        watcher,
      };
    },
    idle: () => lanes.idle(),
    async stop() {
      stopped = true;
      retries.stop();
      queue.clear();
      await lanes.settled();
      await parser.close();
      lanes.wake();
    },
  };
}
