/**
 * Every method of DESIGN.md §3 as a typed descriptor: its name, its params schema (validated by the
 * daemon at the boundary) and its result type (carried for the typed client).
 */

import type {
  ArchiveDeletedResult,
  ArchiveForgetResult,
  ArchiveListResult,
  ArchivePruneResult,
  ArchiveRestoreResult,
  ArchiveVerifyResult,
} from './archive.js';
import type { CompactionResult, ToolResultContent } from './compaction.js';
import type { DaemonStatus, ShutdownResult, SubscriptionResult, VersionInfo } from './daemon.js';
import { EVENT_TOPICS } from './events.js';
import { EXPORT_FORMATS, type ExportPage, MAX_EXPORT_PAGE_BYTES, MIN_EXPORT_PAGE_BYTES } from './export.js';
import type { UsageStatusResult } from './forecast.js';
import type {
  CompactRecord,
  HandoffReadResult,
  HandoffResult,
  HandoffStatusResult,
  SessionStartResult,
} from './handoff.js';
import type { HistoryListResult } from './history.js';
import type { MemoryLockResult, MemorySummaryResult } from './memory.js';
import { type MethodDescriptor, method, projectParam } from './method.js';
import { MEMDIR_METHODS } from './methods-memdir.js';
import { MAX_RECALL_DEADLINE_MS, type RecallResult } from './recall.js';
import {
  effortParamsSchema,
  promptCacheParamsSchema,
  rateLimitsParamsSchema,
  type SessionsReportResult,
} from './reports.js';
import type { RewindListResult, RewindRestoreResult, RewindUndoResult } from './rewind.js';
import { arrayOf, bool, int, object, oneOf, optional, str, union } from './schema.js';
import {
  MAX_CONTEXT_BLOCK_CHARS,
  MIN_CONTEXT_BLOCK_CHARS,
  SEARCH_KINDS,
  type SearchContextResult,
  type SearchQueryResult,
} from './search.js';
import type { SessionList, SessionSummary, ThresholdResult } from './sessions.js';
import type { SyncStatus } from './sync.js';
import { USAGE_GROUPINGS, type UsageReportResult } from './usage.js';
import { MAX_STATED_WINDOW, MIN_STATED_WINDOW } from './window.js';

export type { MethodDescriptor } from './method.js';

/** Results of methods whose feature lands in a later issue; the daemon answers MethodNotFound until then. */
export type PendingResult = Record<string, unknown>;

const sessionId = str({ minLength: 1, maxLength: 200 });
const nothing = object({});
const project = projectParam;
const topics = arrayOf(oneOf(...EVENT_TOPICS), { minItems: 1, maxItems: EVENT_TOPICS.length });

export const Methods = {
  daemonVersion: method<VersionInfo>()('daemon.version', nothing),
  daemonStatus: method<DaemonStatus>()('daemon.status', nothing),
  daemonShutdown: method<ShutdownResult>()('daemon.shutdown', object({ reason: optional(str({ maxLength: 500 })) })),

  sessionsList: method<SessionList>()(
    'sessions.list',
    object({
      project: optional(str()),
      activeWithinMs: optional(int({ min: 0 })),
      limit: optional(int({ min: 1, max: 10_000 })),
      cursor: optional(str({ minLength: 1, maxLength: 8_192 })),
      all: optional(bool()),
    }),
  ),
  // window / model: what Claude Code stated for the session (its status line's context_window_size, its model id); memd keeps it (issue 28).
  sessionsGet: method<SessionSummary>()(
    'sessions.get',
    object({
      sessionId,
      window: optional(int({ min: MIN_STATED_WINDOW, max: MAX_STATED_WINDOW })),
      model: optional(str({ minLength: 1, maxLength: 200 })),
    }),
  ),

  // What Claude Code's status line reported (rate_limits, prompt_cache, effort; issue 31): memctl statusline sends it
  // as a notification ahead of sessions.get, so that a memd without it ignores it and answers sessions.get as before.
  sessionsReport: method<SessionsReportResult>()(
    'sessions.report',
    object({
      sessionId,
      rateLimits: optional(rateLimitsParamsSchema),
      promptCache: optional(promptCacheParamsSchema),
      effort: optional(effortParamsSchema),
    }),
  ),

  eventsSubscribe: method<SubscriptionResult>()('events.subscribe', object({ topics })),
  eventsUnsubscribe: method<SubscriptionResult>()('events.unsubscribe', object({ topics })),

  compactThresholds: method<ThresholdResult>()(
    'compact.thresholds',
    union(object({ sessionId }), object({ model: str({ minLength: 1 }), tokens: int({ min: 0 }) })),
  ),
  compactMicro: method<CompactionResult>()('compact.micro', object({ sessionId })),
  compactCacheEdits: method<CompactionResult>()(
    'compact.cacheEdits',
    object({ sessionId, keep: optional(int({ min: 0 })) }),
  ),
  compactAuto: method<CompactionResult>()(
    'compact.auto',
    object({ sessionId, force: optional(bool()), instructions: optional(str({ maxLength: 100_000 })) }),
  ),
  compactReactive: method<CompactionResult>()(
    'compact.reactive',
    object({ sessionId, limitTokens: optional(int({ min: 1 })) }),
  ),
  toolResultsGet: method<ToolResultContent>()(
    'toolResults.get',
    // A page holds at least one whole UTF-8 character (4 bytes) and at most 2 MiB (tool-result-page.ts).
    object({
      sessionId,
      toolUseId: str({ minLength: 1 }),
      offset: optional(int({ min: 0 })),
      length: optional(int({ min: 4, max: 2 * 1024 * 1024 })),
    }),
  ),

  memorySummary: method<MemorySummaryResult>()('memory.summary', object({ sessionId })),
  memoryExtract: method<MemorySummaryResult>()('memory.extract', object({ sessionId })),
  memoryLock: method<MemoryLockResult>()(
    'memory.lock',
    object({
      sessionId,
      owner: str({ minLength: 1 }),
      ttlMs: optional(int({ min: 1 })),
      transcriptPath: optional(str({ minLength: 1, maxLength: 4_096 })),
      whileActive: optional(bool()),
    }),
  ),
  memoryUnlock: method<{ released: boolean }>()(
    'memory.unlock',
    object({
      sessionId,
      owner: str({ minLength: 1 }),
      transcriptPath: optional(str({ minLength: 1, maxLength: 4_096 })),
    }),
  ),
  memoryPause: method<{ paused: boolean }>()('memory.pause', nothing),
  memoryResume: method<{ paused: boolean }>()('memory.resume', nothing),

  ...MEMDIR_METHODS,

  historyList: method<HistoryListResult>()(
    'history.list',
    object({
      project: optional(str({ minLength: 1 })),
      sessionId: optional(sessionId),
      limit: optional(int({ min: 1, max: 100 })),
      // An entry's ISO timestamp: only older entries (the previous page's nextBefore).
      before: optional(str({ minLength: 1 })),
    }),
  ),
  rewindList: method<RewindListResult>()('rewind.list', object({ sessionId })),
  rewindRestore: method<RewindRestoreResult>()(
    'rewind.restore',
    object({
      sessionId,
      messageId: str({ minLength: 1 }),
      dryRun: optional(bool()),
      allowOutsideProject: optional(bool()),
    }),
  ),
  rewindUndo: method<RewindUndoResult>()(
    'rewind.undo',
    object({ undoId: str({ minLength: 1, maxLength: 200 }), dryRun: optional(bool()) }),
  ),

  handoffGenerate: method<HandoffResult>()(
    'handoff.generate',
    // writeFile: an addition to DESIGN.md (issue 29): false when the caller writes the file (the hook, as the user, where the service may not).
    union(
      object({ sessionId, cwd: str({ minLength: 1 }), trigger: optional(str()), writeFile: optional(bool()) }),
      object({
        transcriptPath: str({ minLength: 1 }),
        cwd: str({ minLength: 1 }),
        trigger: optional(str()),
        writeFile: optional(bool()),
      }),
    ),
  ),
  // sessionId: an addition to DESIGN.md (issue 27): the asking session's, so that another's handoff is absent.
  handoffRead: method<HandoffReadResult>()(
    'handoff.read',
    object({ cwd: str({ minLength: 1 }), sessionId: optional(sessionId) }),
  ),

  searchQuery: method<SearchQueryResult>()(
    'search.query',
    object({
      query: str({ minLength: 1, maxLength: 1_000 }),
      project: optional(project),
      sessionId: optional(sessionId),
      // ISO times, or a span back from now: `7d`, `12h`, `30m`.
      since: optional(str({ minLength: 1, maxLength: 64 })),
      until: optional(str({ minLength: 1, maxLength: 64 })),
      kinds: optional(arrayOf(oneOf(...SEARCH_KINDS), { minItems: 1, maxItems: SEARCH_KINDS.length })),
      limit: optional(int({ min: 1, max: 100 })),
      cursor: optional(str({ minLength: 1, maxLength: 200 })),
      // The session the search is asked from (an addition, issue 28): its turn in flight is left out.
      askingSession: optional(sessionId),
    }),
  ),
  // Issue 33: what the prompt and failure hooks inject, in one exchange within the hook's deadline.
  recallForPrompt: method<RecallResult>()(
    'recall.forPrompt',
    object({
      sessionId,
      prompt: str({ minLength: 1, maxLength: 100_000 }),
      cwd: optional(str({ minLength: 1, maxLength: 4_096 })),
      deadlineMs: optional(int({ min: 1, max: MAX_RECALL_DEADLINE_MS })),
    }),
  ),
  recallForFailure: method<RecallResult>()(
    'recall.forFailure',
    object({
      sessionId,
      toolName: str({ minLength: 1, maxLength: 200 }),
      error: str({ minLength: 1, maxLength: 100_000 }),
      // The failed call's command (Bash) or target, to find the later run that passed.
      command: optional(str({ maxLength: 10_000 })),
      cwd: optional(str({ minLength: 1, maxLength: 4_096 })),
      deadlineMs: optional(int({ min: 1, max: MAX_RECALL_DEADLINE_MS })),
    }),
  ),
  searchContext: method<SearchContextResult>()(
    'search.context',
    object({
      sessionId,
      uuid: str({ minLength: 1, maxLength: 200 }),
      before: optional(int({ min: 0, max: 50 })),
      after: optional(int({ min: 0, max: 50 })),
      // Characters of each block at most (an addition, issue 27): longer ones are cut and say so.
      maxBlockChars: optional(int({ min: MIN_CONTEXT_BLOCK_CHARS, max: MAX_CONTEXT_BLOCK_CHARS })),
    }),
  ),
  exportSession: method<ExportPage>()(
    'export.session',
    object({
      sessionId,
      format: oneOf(...EXPORT_FORMATS),
      // The previous page's nextCursor; absent for the first page.
      cursor: optional(str({ minLength: 1, maxLength: 1_000 })),
      // Bytes of content per page (an addition to DESIGN.md: tests page small exports).
      maxBytes: optional(int({ min: MIN_EXPORT_PAGE_BYTES, max: MAX_EXPORT_PAGE_BYTES })),
      // md/html: false for the transcript's secrets as they are (issue 27; an addition to DESIGN.md).
      // Redacted by default; jsonl is the transcript's bytes and ignores it.
      redact: optional(bool()),
    }),
  ),
  archiveList: method<ArchiveListResult>()(
    'archive.list',
    object({
      sessionId: optional(sessionId),
      limit: optional(int({ min: 1, max: 500 })),
      cursor: optional(str({ minLength: 1, maxLength: 200 })),
    }),
  ),
  archiveRestore: method<ArchiveRestoreResult>()(
    'archive.restore',
    object({
      sessionId,
      to: optional(str({ minLength: 1, maxLength: 4_096 })),
      // Issue 35 (an addition): another machine's copy, by device id or name (docs/sync.md).
      device: optional(str({ minLength: 1, maxLength: 200 })),
    }),
  ),
  // Issue 35 (an addition): what this machine shares through the sync folder, and what the others shared.
  syncStatus: method<SyncStatus>()('sync.status', nothing),
  archiveVerify: method<ArchiveVerifyResult>()('archive.verify', object({ sessionId: optional(sessionId) })),
  // Additions to DESIGN.md §3 (docs/protocol.md): prune, and forget's deleteTranscripts.
  archivePrune: method<ArchivePruneResult>()(
    'archive.prune',
    object({ olderThan: str({ minLength: 1, maxLength: 64 }), dryRun: optional(bool()) }),
  ),
  archiveForget: method<ArchiveForgetResult>()(
    'archive.forget',
    object({ sessionId, deleteTranscripts: optional(bool()) }),
  ),
  // Issue 31 (an addition): the transcripts Claude Code deleted, and what memd holds of them.
  archiveDeleted: method<ArchiveDeletedResult>()(
    'archive.deleted',
    object({
      // An ISO time or a span back from now (7d).
      since: optional(str({ minLength: 1, maxLength: 64 })),
      limit: optional(int({ min: 1, max: 5_000 })),
    }),
  ),
  usageReport: method<UsageReportResult>()(
    'usage.report',
    object({
      // A span back from now (30d: today and the 29 days before), a day (2026-03-01) or an ISO time.
      since: optional(str({ minLength: 1, maxLength: 64 })),
      until: optional(str({ minLength: 1, maxLength: 64 })),
      by: optional(oneOf(...USAGE_GROUPINGS)),
      // Additions to DESIGN.md §3 (docs/protocol.md): until, project and timezone.
      project: optional(project),
      timezone: optional(str({ minLength: 1, maxLength: 100 })),
      // Issue 35 (an addition): a device's id or name; `by: 'device'` groups by it.
      device: optional(str({ minLength: 1, maxLength: 200 })),
    }),
  ),
  // Where a session stands against its limits, with forecasts (issue 31; an addition, docs/protocol.md): the
  // session's auto-compact, the 5-hour plan window at its pace, and the cache rebuild idling would cost.
  usageStatus: method<UsageStatusResult>()('usage.status', object({ sessionId })),
  // Additions to DESIGN.md §3, for the hook commands (docs/protocol.md).
  // model: the SessionStart hook's `model` (issue 28); a `[1m]` id states the session's window, as in sessions.get.
  handoffSessionStart: method<SessionStartResult>()(
    'handoff.sessionStart',
    object({
      sessionId,
      cwd: str({ minLength: 1 }),
      source: str({ minLength: 1, maxLength: 100 }),
      model: optional(str({ minLength: 1, maxLength: 200 })),
    }),
  ),
  handoffPostCompact: method<CompactRecord>()(
    'handoff.postCompact',
    object({ sessionId, trigger: str({ minLength: 1, maxLength: 100 }), compactSummary: str() }),
  ),
  handoffStatus: method<HandoffStatusResult>()('handoff.status', object({ sessionId })),
  // Issue 31: StopFailure releases the turn's lock (as memory.unlock) and records why.
  handoffTurnFailed: method<{ released: boolean }>()(
    'handoff.turnFailed',
    object({
      sessionId,
      owner: str({ minLength: 1 }),
      transcriptPath: optional(str({ minLength: 1, maxLength: 4_096 })),
      error: str({ minLength: 1, maxLength: 200 }),
      details: optional(str({ maxLength: 4_000 })),
    }),
  ),
  // Issue 31: InstructionsLoaded, one instruction file in context.
  handoffInstructionsLoaded: method<{ recorded: boolean }>()(
    'handoff.instructionsLoaded',
    object({
      sessionId,
      filePath: str({ minLength: 1, maxLength: 4_096 }),
      memoryType: str({ minLength: 1, maxLength: 100 }),
      loadReason: str({ minLength: 1, maxLength: 100 }),
    }),
  ),
} as const;

export type MethodName = (typeof Methods)[keyof typeof Methods]['name'];
export type ParamsOf<M> = M extends MethodDescriptor<infer P, unknown> ? P : never;
export type ResultOf<M> = M extends MethodDescriptor<unknown, infer R> ? R : never;

export const METHOD_BY_NAME: ReadonlyMap<string, MethodDescriptor<unknown, unknown>> = new Map(
  Object.values(Methods).map((descriptor) => [descriptor.name, descriptor as MethodDescriptor<unknown, unknown>]),
);
