/** `sessions.list`, `sessions.get` and `compact.thresholds`: a session's accounting and where it stands. */
import { SPEND_KINDS, type SpendKind } from './memory.js';
import { type ReportedState, reportedStateSchema } from './reports.js';
import {
  anyValue,
  arrayOf,
  bool,
  looseObject,
  nullable,
  num,
  oneOf,
  optional,
  type Schema,
  str,
  withDefault,
} from './schema.js';
import { type TokenCounts, tokenCountsFields } from './tokens.js';

export const THRESHOLD_STATES = ['ok', 'warning', 'error', 'autocompact', 'blocking'] as const;
export type ThresholdState = (typeof THRESHOLD_STATES)[number];

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

/** A share of a session's usage (`SessionFigures.usage`): its responses' tokens, how many, what they cost. */
export interface UsageTotals extends TokenCounts {
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
  compactions: {
    count: number;
    lastTrigger: string | null;
    lastPreTokens: number | null;
    lastPostTokens: number | null;
  };
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
  /**
   * The tokens of those extractions, the prompt cache's reads and writes apart from plain input
   * (an addition, issue 32: a growing session's conversation prefix is read from the cache).
   */
  spentTokens: SpentTokens;
  /**
   * What each kind of memd's model calls spent on this session over every day (extraction,
   * compaction, handoff; only the kinds it has): an addition, issue 32, absent from an older memd.
   */
  spentByKind?: KindSpend[];
  /**
   * Who wrote `summary.md` last, as memd last saw it: `memd`, `claude-code` (Claude Code's own
   * session memory; memd then reads it and writes none), null before either (an addition, issue 31).
   */
  writer: SessionMemoryWriter | null;
}

/** One kind's spend: USD, calls and tokens. */
export interface KindSpend {
  kind: SpendKind;
  usd: number;
  runs: number;
  tokens: SpentTokens;
}

/** Tokens of model calls, summed. */
export interface SpentTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The writers of a session's `summary.md`. */
export type SessionMemoryWriter = 'memd' | 'claude-code';

/** One session as `sessions.list` and `sessions.get` report it. */
export interface SessionSummary extends SessionFigures {
  sessionMemory: SessionMemoryState;
  /** memd's archive holds the main transcript (`archive.restore` puts it back; an addition, read at every answer). */
  archived: boolean;
  /**
   * The machines holding the session, by name, this one first when it does (issue 35; an addition):
   * present only once another machine's copy is indexed here (through the sync folder).
   */
  devices?: string[];
  /**
   * `sessions.get` only, when above 0 (issue 31; an addition): sessions Claude Code deleted in the
   * last 7 days that memd did not hold whole, for the status line's warning.
   */
  deletedNotHeld?: number;
  /**
   * `sessions.get` only (issue 32; an addition): the survival score of the session's last recorded
   * compaction (Claude Code's, docs/survival.md), for the status line's "last compaction kept 41/43".
   */
  lastCompaction?: { kept: number; lost: number; recordedAt: string };
  /**
   * What Claude Code's status line last reported of the plan limits and the prompt cache (issue 31):
   * `sessions.get` only, kept in memd's memory (empty again after a restart until the next refresh).
   */
  reported?: ReportedState;
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

// The schemas clients read these answers with (sessions.list, sessions.get, compact.thresholds,
// session.updated): every field of the type checked, fields a newer memd adds kept.

export const thresholdResultSchema: Schema<ThresholdResult> = looseObject({
  model: str(),
  tokens: num(),
  window: num(),
  effectiveWindow: num(),
  autoCompactAt: num(),
  warningAt: num(),
  errorAt: num(),
  blockingAt: num(),
  state: oneOf(...THRESHOLD_STATES),
  tokensLeft: num(),
  percentUsed: num(),
  autoCompactEnabled: bool(),
  // A memd before Claude Code 2.1.197's reactive mode sent none: it compacted at the threshold.
  autoCompactMode: withDefault(oneOf('threshold', 'reactive'), 'threshold'),
});

export const usageTotalsSchema: Schema<UsageTotals> = looseObject({
  ...tokenCountsFields,
  assistantMessages: num(),
  costUsd: nullable(num()),
});

const sessionFiguresFields = {
  sessionId: str({ minLength: 1 }),
  project: str(),
  cwd: nullable(str()),
  gitBranch: nullable(str()),
  title: nullable(str()),
  model: nullable(str()),
  firstActivity: nullable(str()),
  lastActivity: nullable(str()),
  gone: bool(),
  hasMainTranscript: bool(),
  contextTokens: num(),
  threshold: thresholdResultSchema,
  usage: looseObject({
    main: usageTotalsSchema,
    sidechain: usageTotalsSchema,
    compaction: usageTotalsSchema,
    total: usageTotalsSchema,
  }),
  compactions: looseObject({
    count: num(),
    lastTrigger: nullable(str()),
    lastPreTokens: nullable(num()),
    lastPostTokens: nullable(num()),
  }),
  sinceExtraction: looseObject({ toolCalls: num(), tokenGrowth: num() }),
  entries: num(),
  sidechainFiles: num(),
  compactionFiles: num(),
  badLines: num(),
  // A memd before issue 27 counted none.
  badTimestamps: withDefault(num(), 0),
};

export const sessionFiguresSchema: Schema<SessionFigures> = looseObject(sessionFiguresFields);

export const sessionMemoryStateSchema: Schema<SessionMemoryState> = looseObject({
  extractedAt: nullable(str()),
  lock: nullable(looseObject({ owner: str(), expiresAt: num() })),
  spentUsd: num(),
  // A memd before issue 32 did not tell.
  spentTokens: withDefault(looseObject({ input: num(), output: num(), cacheRead: num(), cacheWrite: num() }), {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
  }),
  spentByKind: optional(
    arrayOf(
      looseObject({
        kind: oneOf(...SPEND_KINDS),
        usd: num(),
        runs: num(),
        tokens: looseObject({ input: num(), output: num(), cacheRead: num(), cacheWrite: num() }),
      }),
    ),
  ),
  // A memd before issue 31 did not tell.
  writer: withDefault(nullable(oneOf('memd', 'claude-code')), null),
});

/** A memd before the archive (issue 18) kept no copy. */
const archivedSchema = withDefault(bool(), false);

export const sessionSummarySchema: Schema<SessionSummary> = looseObject({
  ...sessionFiguresFields,
  sessionMemory: sessionMemoryStateSchema,
  archived: archivedSchema,
  deletedNotHeld: optional(num()),
  lastCompaction: optional(looseObject({ kept: num(), lost: num(), recordedAt: str() })),
  // sessions.get's only; a memd before issue 31 sends none.
  reported: optional(reportedStateSchema),
  // Issue 35: only once another machine's copy is indexed.
  devices: optional(arrayOf(str())),
});

const sessionListFields = { total: nullable(num()), hidden: num(), nextCursor: nullable(str()) };

export const sessionListSchema: Schema<SessionList> = looseObject({
  sessions: arrayOf(sessionSummarySchema),
  ...sessionListFields,
});

/**
 * What a row of a session table reads (`memctl sessions`, `memctl status`): a quick path that prints
 * only the table checks only these, not the rest of each summary (checking all of a 50-session
 * page was a third of what `memctl sessions` added to node's start; issue 34).
 */
export type SessionRow = Pick<
  SessionSummary,
  | 'sessionId'
  | 'project'
  | 'cwd'
  | 'title'
  | 'lastActivity'
  | 'gone'
  | 'archived'
  | 'hasMainTranscript'
  | 'contextTokens'
  | 'threshold'
  | 'devices'
> & { usage: { total: Pick<UsageTotals, 'costUsd'> } };

export type SessionRowList = Omit<SessionList, 'sessions'> & { sessions: SessionRow[] };

export const sessionRowListSchema: Schema<SessionRowList> = looseObject({
  sessions: arrayOf(
    looseObject({
      sessionId: sessionFiguresFields.sessionId,
      project: sessionFiguresFields.project,
      cwd: sessionFiguresFields.cwd,
      title: sessionFiguresFields.title,
      lastActivity: sessionFiguresFields.lastActivity,
      gone: sessionFiguresFields.gone,
      archived: archivedSchema,
      hasMainTranscript: sessionFiguresFields.hasMainTranscript,
      contextTokens: sessionFiguresFields.contextTokens,
      threshold: thresholdResultSchema,
      usage: looseObject({ total: looseObject({ costUsd: nullable(num()) }) }),
      devices: optional(arrayOf(str())),
    }),
  ),
  ...sessionListFields,
});

/** A page whose sessions its reader checks one by one (sessionSummarySchema), so that one bad session does not lose the page. */
export const sessionPageSchema: Schema<Omit<SessionList, 'sessions'> & { sessions: unknown[] }> = looseObject({
  sessions: arrayOf(anyValue()),
  ...sessionListFields,
});
