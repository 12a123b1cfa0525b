/** `compact.*` and `toolResults.get` results, and auto-compaction in `daemon.status`. */
import { type ContentBlock, type MessageParam, messageParamSchema } from './messages.js';
import { arrayOf, bool, literal, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';

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
export const COMPACTION_METHODS = ['micro', 'cache-edits', 'session-memory', 'summary', 'reactive'] as const;
export type CompactionMethod = (typeof COMPACTION_METHODS)[number];

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

/** The kinds of session facts a survival score counts (docs/survival.md). */
export const SURVIVAL_KINDS = ['file', 'error', 'rule', 'todo', 'decision'] as const;
export type SurvivalKind = (typeof SURVIVAL_KINDS)[number];

/** One fact of the session before a compaction, and whether what the model saw next still carries it. */
export interface SurvivalItem {
  kind: SurvivalKind;
  /** The fact as the transcript states it: a path with its status, an error's key line, a rule verbatim, a todo, a decision. */
  text: string;
  kept: boolean;
}

/** Which of the session's facts survived a compaction (issue 32): counts over all facts, items capped. */
export interface Survival {
  kept: number;
  lost: number;
  /** The lost items first, then the kept; capped (see docs/protocol.md), the counts are not. */
  items: SurvivalItem[];
}

export const COMPACTION_ACTION_KINDS = [
  'persisted',
  'cleared',
  'truncated-mcp',
  'summarized',
  'dropped-round',
  'previewed',
] as const;
export type CompactionActionKind = (typeof COMPACTION_ACTION_KINDS)[number];

/** One change a compaction made to the conversation. */
export interface CompactionAction {
  /** `previewed`: a tool result cut to its start and end by reactive compaction; `toolResults.get` has it whole. */
  kind: CompactionActionKind;
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
  /**
   * Which of the session's facts (files changed, errors, rules, todos, decisions) the messages still
   * carry; a memd before issue 32 sends none.
   */
  survival?: Survival;
  [key: string]: unknown;
}

export const compactionStatusSchema: Schema<CompactionStatus> = looseObject({
  autoRuns: num(),
  failing: arrayOf(looseObject({ sessionId: str(), failures: num(), stopped: bool(), lastError: str() })),
});

export const lostItemsSchema: Schema<LostItems> = looseObject({
  userMessages: arrayOf(str()),
  filePaths: arrayOf(str()),
  identifiers: arrayOf(str()),
  errors: arrayOf(str()),
});

export const survivalSchema: Schema<Survival> = looseObject({
  kept: num(),
  lost: num(),
  items: arrayOf(looseObject({ kind: oneOf(...SURVIVAL_KINDS), text: str(), kept: bool() })),
});

export const compactionActionSchema: Schema<CompactionAction> = looseObject({
  kind: oneOf(...COMPACTION_ACTION_KINDS),
  id: str(),
  tool: optional(str()),
  tokensBefore: num(),
  tokensAfter: num(),
  path: optional(str()),
});

/** compact.micro, compact.cacheEdits, compact.auto and compact.reactive (whose `estimate` is kept as it came). */
export const compactionResultSchema: Schema<CompactionResult> = looseObject({
  sessionId: str(),
  method: oneOf(...COMPACTION_METHODS),
  messages: arrayOf(messageParamSchema),
  boundary: nullable(looseObject({ uuid: str(), trigger: str(), preTokens: nullable(num()) })),
  summary: nullable(str()),
  preTokens: num(),
  postTokens: num(),
  keptFromUuid: nullable(str()),
  actions: arrayOf(compactionActionSchema),
  lost: lostItemsSchema,
  fallback: optional(looseObject({ from: literal('summary'), reason: str() })),
  // A memd before issue 32 scored none.
  survival: optional(survivalSchema),
});
