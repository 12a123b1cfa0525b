/** What `daemon.status` reports of transcript ingest: progress, counts, failures, the watcher. */
import { arrayOf, bool, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';

/** Where transcript ingest stands. */
export interface IngestProgress {
  /**
   * `starting` until the projects dir has been scanned (nothing is known yet, so nothing is
   * caught up); `backfilling` until every file found then has been read to its end once.
   */
  state: 'starting' | 'backfilling' | 'live';
  /** True only while the watcher is armed and healthy (`IngestStatus.watcher` says why not). */
  watching: boolean;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** Files queued or being read now; 0 with state `live` means caught up with every event seen. */
  filesPending: number;
  /** When the first backfill of this run began. */
  backfillStartedAt: string | null;
  /** How long that backfill took, once it is done (the cold-ingest figure of the bench). */
  backfillMs: number | null;
  /**
   * While backfilling, the time left at the rate so far (null until there is a rate to go by);
   * absent from a memd older than issue 34.
   */
  backfillEtaMs?: number | null;
}

export interface IngestStats {
  files: number;
  sessions: number;
  entries: number;
  badLines: number;
  /** Lines indexed without their timestamp, a bad value (an addition: issue 27; shared/transcript/timestamp.ts). */
  badTimestamps: number;
  /** Transcript bytes read, over every run, as committed with the rows they produced. */
  bytesRead: number;
  /** Transcript bytes read by this process (a restart over unchanged files reads 0). */
  bytesReadThisRun: number;
  /** Bytes read by this process to check that files are unchanged (heads, last newline). */
  checkBytesReadThisRun: number;
}

export interface BadLineInfo {
  path: string;
  sessionId: string;
  offset: number;
  length: number;
  reason: string;
  at: string;
}

/**
 * `read`: the file cannot be opened or read (EACCES, EIO, not a regular file, a symlink out of the
 * projects dir); `store`: the index cannot be written (SQLITE_FULL, SQLITE_CORRUPT, ...), which
 * pauses all of ingest; `parse`: the parse worker failed on the file.
 */
export type IngestFailureKind = 'read' | 'store' | 'parse';

/** A file (or, kind `store`, the index) that failed and is retried after a backoff. */
export interface IngestFailure {
  /** The file; for kind `store`, the file whose write failed last. */
  path: string;
  kind: IngestFailureKind;
  /** The error code (EACCES, SQLITE_FULL, ...), or null when it has none. */
  code: string | null;
  message: string;
  /** The first failure of this kind in the current run of failures. */
  since: string;
  /** Failed attempts since then, the first included. */
  failures: number;
  /** No attempt before this. */
  retryAt: string;
}

/** What the transcript watcher is doing. */
export interface WatcherStatus {
  /**
   * `watching`: changes arrive as events; `degraded`: events may be missed (the projects dir is
   * unreadable, or the watcher failed) and the watcher is re-armed once it can be; `missing`: the
   * projects dir does not exist and is polled for; `stopped`: not started, or shut down;
   * `refused` (an addition, issue 27): it resolves to `/` or into /proc, /sys or /dev, and is
   * neither watched nor walked until it no longer does.
   */
  state: 'watching' | 'degraded' | 'missing' | 'stopped' | 'refused';
  /** Why it is not `watching`, else null. */
  reason: string | null;
  /** When it entered this state. */
  since: string | null;
  /** Times the watcher was closed and made again in this run. */
  rearms: number;
}

export interface IngestStatus {
  progress: IngestProgress;
  stats: IngestStats;
  /** The most recent skipped lines, newest first (at most 10). */
  recentBadLines: BadLineInfo[];
  /** The last failure to read a file (not a bad line), if any. */
  lastError: { path: string; message: string; at: string } | null;
  /** What is failing now: the store first, then files by next retry (at most 5; `failingCount` counts all). */
  failing: IngestFailure[];
  failingCount: number;
  watcher: WatcherStatus;
}

export const ingestStatusSchema: Schema<IngestStatus> = looseObject({
  progress: looseObject({
    state: oneOf('starting', 'backfilling', 'live'),
    watching: bool(),
    filesDone: num(),
    filesTotal: num(),
    bytesDone: num(),
    bytesTotal: num(),
    filesPending: num(),
    backfillStartedAt: nullable(str()),
    backfillMs: nullable(num()),
    backfillEtaMs: optional(nullable(num())),
  }),
  stats: looseObject({
    files: num(),
    sessions: num(),
    entries: num(),
    badLines: num(),
    badTimestamps: num(),
    bytesRead: num(),
    bytesReadThisRun: num(),
    checkBytesReadThisRun: num(),
  }),
  recentBadLines: arrayOf(
    looseObject({ path: str(), sessionId: str(), offset: num(), length: num(), reason: str(), at: str() }),
  ),
  lastError: nullable(looseObject({ path: str(), message: str(), at: str() })),
  failing: arrayOf(
    looseObject({
      path: str(),
      kind: oneOf('read', 'store', 'parse'),
      code: nullable(str()),
      message: str(),
      since: str(),
      failures: num(),
      retryAt: str(),
    }),
  ),
  failingCount: num(),
  watcher: looseObject({
    state: oneOf('watching', 'degraded', 'missing', 'stopped', 'refused'),
    reason: nullable(str()),
    since: nullable(str()),
    rearms: num(),
  }),
});
