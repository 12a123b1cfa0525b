/** Result types of the methods the daemon serves. */
import type { ArchiveStatus } from './archive.js';
import type { SearchStatus } from './search.js';
import type { ContentBlock, MessageParam } from './messages.js';

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
    answers: { queuedBytes: number; reservedBytes: number; heavyRunning: number; heavyWaiting: number; busyAnswers: number };
  };
  memory: { rssBytes: number; heapUsedBytes: number };
  compaction: CompactionStatus;
  extraction: ExtractionStatus;
  database: DatabaseStatus;
  ingest: IngestStatus;
  /** The archive of transcripts (issue 18; an addition). */
  archive: ArchiveStatus;
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

export type ThresholdState = 'ok' | 'warning' | 'error' | 'autocompact' | 'blocking';

export interface ThresholdResult {
  model: string;
  tokens: number;
  /** The session's context window (/context's `…/1m`). */
  window: number;
  /** The auto-compact window (CLAUDE_CODE_AUTO_COMPACT_WINDOW, the model's; else `window`) − the output reserve. */
  effectiveWindow: number;
  /** Where Claude Code compacts: ahead of the limit (threshold mode), or at `window` when the API refuses (reactive mode). */
  autoCompactAt: number;
  warningAt: number;
  errorAt: number;
  blockingAt: number;
  state: ThresholdState;
  /** Tokens until auto-compaction (until blocking when auto-compaction is off). */
  tokensLeft: number;
  percentUsed: number;
  autoCompactEnabled: boolean;
  /**
   * `threshold`: an auto-compact window is configured (env, or the model's), and Claude Code
   * compacts at `autoCompactAt`. `reactive`: none is (2.1.197's default for most models), and it
   * compacts only when the API refuses a request; its meter then reads "N% context used".
   */
  autoCompactMode: 'threshold' | 'reactive';
}

export interface UsageTotals {
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  cache5m: number;
  cache1h: number;
  assistantMessages: number;
  /** USD; null when a model in it has no price. */
  costUsd: number | null;
}

/** A session's figures from the index: what its persisted aggregate and its files' rows give. */
export interface SessionFigures {
  sessionId: string;
  project: string;
  cwd: string | null;
  gitBranch: string | null;
  title: string | null;
  model: string | null;
  firstActivity: string | null;
  lastActivity: string | null;
  /** The main transcript was deleted; its rows stay. */
  gone: boolean;
  /**
   * False when only sub-agent files of the session were found (`<id>/subagents/` without
   * `<id>.jsonl`): usage is known, the conversation is not.
   */
  hasMainTranscript: boolean;
  contextTokens: number;
  threshold: ThresholdResult;
  /**
   * `main`: the main agent's requests; `sidechain`: sub-agents'; `compaction`: the summary
   * requests of compaction agents (`agent-acompact-*` files); `total`: their sum.
   */
  usage: { main: UsageTotals; sidechain: UsageTotals; compaction: UsageTotals; total: UsageTotals };
  compactions: { count: number; lastTrigger: string | null; lastPreTokens: number | null; lastPostTokens: number | null };
  /** Since the last session-memory extraction (the whole session until one ran). */
  sinceExtraction: { toolCalls: number; tokenGrowth: number };
  entries: number;
  /** Sub-agent transcripts, compaction agents' not included. */
  sidechainFiles: number;
  compactionFiles: number;
  /** Lines skipped because they were not JSON or not UTF-8. */
  badLines: number;
  /** Lines kept without their timestamp, a bad value (an addition: issue 27; shared/transcript/timestamp.ts). */
  badTimestamps: number;
}

/** The session's memory: its last extraction, who holds its lock, what its extractions cost. */
export interface SessionMemoryState {
  /** When the last extraction finished; null before the first. */
  extractedAt: string | null;
  /** The main agent's hold on the session-memory lock (memory.lock; a Claude Code turn), null when none. */
  lock: { owner: string; expiresAt: number } | null;
  /** USD spent on this session's extractions over every day (0 with the offline summarizer). */
  spentUsd: number;
}

/** One session as `sessions.list` and `sessions.get` report it. */
export interface SessionSummary extends SessionFigures {
  sessionMemory: SessionMemoryState;
  /** memd's archive holds the main transcript (`archive.restore` puts it back; an addition, read at every answer). */
  archived: boolean;
}

export interface SessionList {
  sessions: SessionSummary[];
  /** Sessions the filter lists over all pages; null with a cwd filter (it would summarize every one). */
  total: number | null;
  /** Sessions the filter matched but left out because every file is gone or none has an entry (`all` lists them). */
  hidden: number;
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/** `memory.summary` and `memory.extract`: a session's summary.md and its last extraction. */
export interface MemorySummaryResult {
  sessionId: string;
  path: string;
  /** Null when the session has no summary.md yet. */
  text: string | null;
  /** The last message the summary covers. */
  lastUuid: string | null;
  extractedAt: string | null;
  summarizer: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export interface MemoryLockResult {
  owner: string;
  whileActive?: boolean;
  /** Epoch ms when the lock lapses unless renewed. */
  expiresAt: number;
}

/** Session-memory extraction in `daemon.status`. */
export interface ExtractionStatus {
  /** Jobs by state (queued, running, deferred, done, failed). */
  jobs: Record<string, number>;
  /** Sessions being extracted now. */
  running: string[];
  /** Locks main agents hold through memory.lock. */
  locks: { sessionDir: string; owner: string; expiresAt: number }[];
  /** `memory.pause`: background extraction waits (requested extractions still run). */
  paused: boolean;
  /** The daily cap on background extraction's spend; `reached`: it waits for tomorrow (local time). */
  budget: { dailyUsd: number; spentTodayUsd: number; reached: boolean };
  /** Sessions by their extractions' spend today, most first (at most 10). */
  spentToday: { sessionId: string; usd: number }[];
}

/** Auto-compaction in `daemon.status`. */
export interface CompactionStatus {
  /** Auto-compactions started by threshold crossings since the daemon started. */
  autoRuns: number;
  /** Sessions whose last auto-compactions failed; `stopped` once three in a row did (the circuit breaker). */
  failing: { sessionId: string; failures: number; stopped: boolean; lastError: string }[];
}

/** `toolResults.get`: a tool result in full, from where it is kept. */
export interface ToolResultContent {
  toolUseId: string;
  tool: string | null;
  /** The whole result, or (`paged`) one page of its text form as a string. */
  content: string | ContentBlock[];
  /** Text chars of the whole result, as micro-compaction measures them; null when only a page of a file was read. */
  chars: number | null;
  isError: boolean;
  /** `persisted`: read from its tool-results file (Claude Code's or memd's). */
  source: 'transcript' | 'persisted';
  path?: string;
  /** Where `content` starts, in UTF-8 bytes of the text form. */
  offset: number;
  /** UTF-8 bytes in this answer's part. */
  bytes: number;
  /** UTF-8 bytes of the whole text form. */
  totalBytes: number;
  /** Pass as `offset` for the next page; null when this answer ends the result. */
  nextOffset: number | null;
  /** True when `content` is a page (a string) rather than the whole result. */
  paged: boolean;
  /** What the pages put together are: the result's text, or the JSON of its block array (null when whole). */
  form: 'text' | 'json' | null;
}

/** How a compaction result was made. */
export type CompactionMethod = 'micro' | 'cache-edits' | 'session-memory' | 'summary' | 'reactive';

/** What a compaction dropped: items present in the conversation before and absent after. */
export interface LostItems {
  /** User messages (their text) no longer present verbatim or in the summary. */
  userMessages: string[];
  filePaths: string[];
  /** Code identifiers (function, class and variable names) mentioned before and not after. */
  identifiers: string[];
  /** Error strings (the key line of failed tool results). */
  errors: string[];
}

/** One change a compaction made to the conversation. */
export interface CompactionAction {
  /** `previewed`: a tool result cut to its start and end by reactive compaction; `toolResults.get` has it whole. */
  kind: 'persisted' | 'cleared' | 'truncated-mcp' | 'summarized' | 'dropped-round' | 'previewed';
  /** The tool_use id for tool-result actions; the first entry's uuid for dropped rounds. */
  id: string;
  tool?: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Where a persisted result was written (or already was). */
  path?: string;
}

/**
 * `compact.reactive`'s `estimate`: what its `limitTokens` (the whole request) was checked against,
 * modelled as `overheadTokens + margin × JSON length / 4 of the messages` (docs/protocol.md).
 */
export interface ReactiveEstimate {
  /** overheadTokens + messageTokens: the whole request as the limit saw it. */
  tokens: number;
  /** The messages returned: ceil(JSON length × margin / 4). */
  messageTokens: number;
  /** System prompt, tools and what else each request carries, from the transcript's recorded usage. */
  overheadTokens: number;
  /** k: max(4/3, measuredRatio). */
  margin: number;
  /** Tokens per estimated token between successive responses; null when too few recorded usage. */
  measuredRatio: number | null;
}

/**
 * DESIGN.md §3: ready-to-send messages plus what was done. `preTokens` is the session's context
 * (SessionSummary.contextTokens); `postTokens` is it minus what was freed (docs/protocol.md).
 */
export interface CompactionResult {
  sessionId: string;
  method: CompactionMethod;
  messages: MessageParam[];
  /** The last compact boundary of the conversation compacted, or null. */
  boundary: { uuid: string; trigger: string; preTokens: number | null } | null;
  /** The summary message's text (session memory or summarizer), or null for other methods. */
  summary: string | null;
  preTokens: number;
  postTokens: number;
  /** The first message kept verbatim after the summary, or null when nothing was kept. */
  keptFromUuid: string | null;
  actions: CompactionAction[];
  lost: LostItems;
  /**
   * `compact.auto` only, when the configured summarizer's summary was implausibly short and this
   * is the offline summary instead; the failure counts in the circuit breaker.
   */
  fallback?: { from: 'summary'; reason: string };
  [key: string]: unknown;
}
