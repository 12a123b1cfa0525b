/**
 * The backfill's progress, for status and the `backfill done` line: the files found at start (and
 * those indexed but no longer found) until each has been read to its end once, their bytes, and
 * when the first backfill began and how long it took. `onBackfillDone` is told once, when the last
 * of them is read.
 */
import type { IngestProgress } from '../../shared/protocol/ingest.js';
import type { Logger } from '../log/logger.js';

/**
 * An estimate of the time left is given once the backfill has run this long and read this share
 * of its bytes: before that, start-up work and the first files' costs make the rate a guess.
 */
const ETA_AFTER_MS = 1_000;
const ETA_AFTER_SHARE = 0.02;
/**
 * The time left goes by the rate of about the last 10 s (a mark of the bytes done each second):
 * the newest files, read first, are the large ones with the start-up beside them, and the rate
 * since the start told a backfill a quarter done 12.4 s when 7.3 s were left.
 */
const RATE_WINDOW_MS = 10_000;
const MARK_EVERY_MS = 1_000;

export interface BackfillProgressDeps {
  log: Logger;
  clock: () => number;
  /** Told once, when every file found at start has been read. */
  onBackfillDone(): void;
  /** Told each time a later backfill (another machine's history, issue 35) has been read whole. */
  onDrained?(): void;
}

export interface BackfillProgress {
  /** A backfill begins (the first one starts the clock). */
  begin(): void;
  /** A file the backfill reads, `left` bytes of it. */
  add(path: string, left: number): void;
  /** A file found read to its end before: counted, and done without a pass. */
  addDone(): void;
  /** Waiting for its first read to the end. */
  has(path: string): boolean;
  /** Bytes of the file committed (counted while it is a backfill file). */
  committed(path: string, bytes: number): void;
  /** The file was read to its end (or failed): no longer left; the backfill may be done. */
  finish(path: string): void;
  /** Marks the backfill done if nothing is left of it (once). */
  doneIfEmpty(): void;
  /**
   * Keeps a later backfill open while more of it is coming (sync decodes another machine's history
   * in batches): it drains only once released and read. Returns the release.
   */
  hold(): () => void;
  snapshot(filesPending: number, watching: boolean): IngestProgress;
}

export function createBackfillProgress(deps: BackfillProgressDeps): BackfillProgress {
  const { log, clock } = deps;
  /** Backfill files not yet read to their end once; `backfilling` until it is empty. */
  const left = new Set<string>();
  /** Open holds (hold()): a later backfill is not drained while one is. */
  let holds = 0;
  const counts = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 };
  /** When the first backfill began, and how long until every file found then was read. */
  let startedAt: number | null = null;
  let backfillMs: number | null = null;
  /** Bytes done at moments a second or more apart, the oldest within RATE_WINDOW_MS (or the last one before it). */
  const marks: { at: number; bytes: number }[] = [];

  /** The time left at the recent rate, or null while there is none to go by. */
  function timeLeft(now: number, done: number): number | null {
    if (startedAt === null || left.size === 0 || done <= 0) return null;
    if (now - startedAt < ETA_AFTER_MS || done < counts.bytesTotal * ETA_AFTER_SHARE) return null;
    const since = marks[0] ?? { at: startedAt, bytes: 0 };
    const base = now - since.at >= ETA_AFTER_MS && done > since.bytes ? since : { at: startedAt, bytes: 0 };
    return Math.round(((now - base.at) * (counts.bytesTotal - done)) / (done - base.bytes));
  }

  function doneIfEmpty(): void {
    if (left.size > 0 || startedAt === null || backfillMs !== null) return;
    backfillMs = clock() - startedAt;
    log.info('backfill done', {
      files: counts.filesTotal,
      bytes: counts.bytesTotal,
      ms: backfillMs,
      mbPerS: Math.round((counts.bytesTotal / 1e6 / Math.max(backfillMs, 1)) * 1000 * 10) / 10,
    });
    try {
      deps.onBackfillDone();
    } catch (error) {
      log.error('onBackfillDone failed', { error });
    }
  }

  return {
    begin() {
      startedAt ??= clock();
    },
    add(path, bytes) {
      left.add(path);
      counts.filesTotal += 1;
      counts.bytesTotal += bytes;
    },
    addDone() {
      counts.filesTotal += 1;
      counts.filesDone += 1;
    },
    has: (path) => left.has(path),
    committed(path, bytes) {
      if (!left.has(path)) return;
      counts.bytesDone += bytes;
      const now = clock();
      const last = marks.at(-1);
      if (last === undefined || now - last.at >= MARK_EVERY_MS) marks.push({ at: now, bytes: counts.bytesDone });
      while (marks.length > 1 && now - (marks[1] as { at: number }).at >= RATE_WINDOW_MS) marks.shift();
    },
    finish(path) {
      if (!left.delete(path)) return;
      counts.filesDone += 1;
      if (backfillMs === null) doneIfEmpty();
      else if (left.size === 0 && holds === 0) deps.onDrained?.();
    },
    hold() {
      holds += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        if (holds === 0 && left.size === 0 && backfillMs !== null) deps.onDrained?.();
      };
    },
    doneIfEmpty,
    snapshot(filesPending, watching) {
      const done = Math.min(counts.bytesDone, counts.bytesTotal);
      return {
        state: startedAt === null ? 'starting' : left.size > 0 || holds > 0 ? 'backfilling' : 'live',
        watching,
        ...counts,
        bytesDone: done,
        filesPending,
        backfillStartedAt: startedAt === null ? null : new Date(startedAt).toISOString(),
        backfillMs,
        backfillEtaMs: timeLeft(clock(), done),
      };
    },
  };
}
