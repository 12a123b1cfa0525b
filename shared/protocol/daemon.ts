/** `daemon.*` and `events.*` results, and what `daemon.status` reports of the process itself. */
import { type ArchiveStatus, archiveStatusSchema, type DeletionsStatus, deletionsStatusSchema } from './archive.js';
import { type CompactionStatus, compactionStatusSchema } from './compaction.js';
import { type IngestStatus, ingestStatusSchema } from './ingest.js';
import { type ExtractionStatus, extractionStatusSchema } from './memory.js';
import { arrayOf, bool, literal, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';
import { type SearchStatus, searchStatusSchema } from './search.js';

/** Bumped on any incompatible change of the wire protocol. */
export const PROTOCOL_VERSION = 1;

export interface VersionInfo {
  name: 'memd';
  version: string;
  protocol: number;
  /** Method names this daemon serves, plus feature flags such as `events`. */
  capabilities: string[];
}

export interface OkResult {
  ok: true;
}

/** `daemon.shutdown`: the deadline tells a client how long waiting for the process to go is worth. */
export interface ShutdownResult extends OkResult {
  /** The daemon's shutdownDeadlineMs: it is gone by then, however the shutdown went. */
  deadlineMs: number;
}

export interface SubscriptionResult {
  /** Every topic this connection is subscribed to after the call. */
  topics: string[];
}

export interface DaemonPaths {
  socket: string;
  stateDir: string;
  database: string;
  log: string | null;
  config: string;
  projectsDir: string;
}

export interface DatabaseStatus {
  schemaVersion: number;
  /** Set when the database failed its integrity check at start and was rebuilt. */
  recoveredFrom: { movedTo: string; reason: string; at: string } | null;
  /**
   * The last time the file was found deleted, replaced or corrupt while memd ran, and what memd
   * did: `reopened` (the open connection's content written back to the path, nothing lost) or
   * `rebuilt` (moved aside; the index is read again from the transcripts). Null when it never was.
   */
  whileRunning: DatabaseIncident | null;
}

export interface DatabaseIncident {
  problem: 'deleted' | 'replaced' | 'corrupt';
  action: 'reopened' | 'rebuilt' | 'failed';
  detail: string;
  movedTo: string | null;
  at: string;
  /** Incidents since start. */
  count: number;
}

export interface DaemonStatus {
  pid: number;
  version: string;
  protocol: number;
  startedAt: string;
  uptimeMs: number;
  socketActivated: boolean;
  paths: DaemonPaths;
  counts: {
    connections: number;
    subscriptions: number;
    requestsServed: number;
    protocolErrors: number;
    /**
     * The daemon-wide answer budget (an addition to DESIGN.md, issue 27): bytes written to clients
     * and not read yet, bytes reserved for answers being built, heavy requests running and
     * waiting, and the Busy answers given since the start.
     */
    answers: {
      queuedBytes: number;
      reservedBytes: number;
      heavyRunning: number;
      heavyWaiting: number;
      busyAnswers: number;
    };
  };
  memory: { rssBytes: number; heapUsedBytes: number };
  compaction: CompactionStatus;
  extraction: ExtractionStatus;
  database: DatabaseStatus;
  ingest: IngestStatus;
  /** The archive of transcripts (issue 18; an addition). */
  archive: ArchiveStatus;
  /** Transcripts Claude Code deleted, on the record (issue 31; an addition; absent from an older daemon). */
  deletions?: DeletionsStatus;
  /** The search processes: running, queued, and queries stopped (issue 27; an addition). */
  search: SearchStatus;
  /** How long the event loop was held since memd started serving (issue 27; an addition). */
  loop: LoopStatus;
}

/**
 * The event loop's delays since memd started serving: every request waits behind the longest
 * stretch of main-thread work. On a loaded machine they include waits for a core.
 */
export interface LoopStatus {
  maxDelayMs: number;
  p99DelayMs: number;
}

export const versionInfoSchema: Schema<VersionInfo> = looseObject({
  name: literal('memd'),
  version: str(),
  protocol: num(),
  capabilities: arrayOf(str()),
});

export const databaseIncidentSchema: Schema<DatabaseIncident> = looseObject({
  problem: oneOf('deleted', 'replaced', 'corrupt'),
  action: oneOf('reopened', 'rebuilt', 'failed'),
  detail: str(),
  movedTo: nullable(str()),
  at: str(),
  count: num(),
});

export const daemonStatusSchema: Schema<DaemonStatus> = looseObject({
  pid: num(),
  version: str(),
  protocol: num(),
  startedAt: str(),
  uptimeMs: num(),
  socketActivated: bool(),
  paths: looseObject({
    socket: str(),
    stateDir: str(),
    database: str(),
    log: nullable(str()),
    config: str(),
    projectsDir: str(),
  }),
  counts: looseObject({
    connections: num(),
    subscriptions: num(),
    requestsServed: num(),
    protocolErrors: num(),
    answers: looseObject({
      queuedBytes: num(),
      reservedBytes: num(),
      heavyRunning: num(),
      heavyWaiting: num(),
      busyAnswers: num(),
    }),
  }),
  memory: looseObject({ rssBytes: num(), heapUsedBytes: num() }),
  compaction: compactionStatusSchema,
  extraction: extractionStatusSchema,
  database: looseObject({
    schemaVersion: num(),
    recoveredFrom: nullable(looseObject({ movedTo: str(), reason: str(), at: str() })),
    whileRunning: nullable(databaseIncidentSchema),
  }),
  ingest: ingestStatusSchema,
  archive: archiveStatusSchema,
  deletions: optional(deletionsStatusSchema),
  search: searchStatusSchema,
  loop: looseObject({ maxDelayMs: num(), p99DelayMs: num() }),
});
