/**
 * When a session's memory is extracted (DESIGN.md §5, issue 5 item 1), evaluated after every
 * commit of ingested lines. Pure: `triggerState` reads a session's main transcript entries and
 * where the last extraction stopped; `shouldExtract` applies the rules:
 *   - the first extraction once the context holds FIRST_EXTRACTION_TOKENS;
 *   - then once it grew by MIN_GROWTH_TOKENS, and either MIN_TOOL_CALLS tools were called or the
 *     last assistant turn called none (a natural break: the model stopped to answer).
 *
 * A compact boundary after the last extraction resets both baselines: growth is measured from
 * the context the compaction left (its `postTokens`, else the estimate of what it wrote), and
 * only tool calls after it count. The accounting alone would measure from the extraction's
 * context, which a compaction undercuts, and would hold the next extraction back until the
 * context grew past its pre-compaction size.
 */
import { computeSessionAccounting, type LastExtraction } from '../../shared/transcript/accounting.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

/** Below this a session has too little to summarize (Claude Code's minimumMessageTokensToInit). */
export const FIRST_EXTRACTION_TOKENS = 10_000;
/** Less new context than this is not worth a summarizer call (minimumTokensBetweenUpdate). */
export const MIN_GROWTH_TOKENS = 5_000;
/** Mid tool loop, wait for this much work, so a summary is not rewritten at every step (toolCallsBetweenUpdates). */
export const MIN_TOOL_CALLS = 3;

export interface TriggerState {
  contextTokens: number;
  /** Null when the session was never extracted. */
  lastExtraction: LastExtraction | null;
  /** Context tokens gained since the last extraction, or since a compaction after it; never negative. */
  tokenGrowth: number;
  /** Tool calls on the active conversation since then. */
  toolCallsSince: number;
  /** The last assistant turn called tools: the model is mid-task, not at a natural break. */
  lastResponseHasToolCalls: boolean;
}

export type TriggerReason = 'first' | 'tokens-and-tools' | 'natural-break';

export interface TriggerDecision {
  extract: boolean;
  reason: TriggerReason | null;
}

const WAIT: TriggerDecision = { extract: false, reason: null };

export function shouldExtract(state: TriggerState): TriggerDecision {
  if (state.lastExtraction === null) {
    return state.contextTokens >= FIRST_EXTRACTION_TOKENS ? { extract: true, reason: 'first' } : WAIT;
  }
  if (Math.max(0, state.tokenGrowth) < MIN_GROWTH_TOKENS) return WAIT;
  if (state.toolCallsSince >= MIN_TOOL_CALLS) return { extract: true, reason: 'tokens-and-tools' };
  if (!state.lastResponseHasToolCalls) return { extract: true, reason: 'natural-break' };
  return WAIT;
}

/** The byte offset the extraction covered, as the accounting locates it; null when nothing matches. */
function extractionMark(main: readonly IndexedEntry[], last: LastExtraction): number | null {
  if (last.uuid !== undefined) {
    const entry = main.find((candidate) => candidate.uuid === last.uuid);
    if (entry) return entry.offset;
  }
  return last.atOffset ?? null;
}

/** The newest compact boundary of the main thread written after the mark, or null. */
function boundarySince(main: readonly IndexedEntry[], mark: number): IndexedEntry | null {
  const boundary = main.findLast((entry) => !entry.isSidechain && entry.compact !== null);
  return boundary !== undefined && boundary.offset > mark ? boundary : null;
}

/** What a compaction writes after its boundary: the summary, re-attached files and context, bookkeeping. */
function isCompactionOutput(entry: IndexedEntry): boolean {
  return entry.isCompactSummary || entry.isMeta || entry.type === 'attachment' || entry.type === 'system' || entry.uuid === null;
}

/**
 * The context a compaction left: Claude Code's own count when the boundary records it, else the
 * estimate of the active conversation right after the compaction's own entries (the boundary,
 * summary, attachments and preserved segment), before the next prompt or response.
 */
function contextAfterCompaction(main: readonly IndexedEntry[], boundary: IndexedEntry): number {
  const postTokens = boundary.compact?.postTokens ?? null;
  if (postTokens !== null) return postTokens;
  const at = main.indexOf(boundary);
  let end = at + 1;
  while (end < main.length) {
    const entry = main[end];
    if (entry === undefined || (!entry.isSidechain && !isCompactionOutput(entry))) break;
    end++;
  }
  return computeSessionAccounting(main.slice(0, end), [], { env: {} }).contextTokens;
}

/**
 * The trigger inputs of one session from its main transcript's entries in file order (sub-agent
 * transcripts never count: their context is not the session's).
 */
export function triggerState(main: readonly IndexedEntry[], lastExtraction: LastExtraction | null): TriggerState {
  const accounting = computeSessionAccounting(main, [], { env: {}, lastExtraction });
  let since = accounting.sinceExtraction;
  const mark = lastExtraction === null ? null : extractionMark(main, lastExtraction);
  const boundary = mark === null ? null : boundarySince(main, mark);
  if (boundary !== null) {
    // The compaction stands in for the extraction as the point everything is measured from.
    const baseline: LastExtraction = { atOffset: boundary.offset, contextTokens: contextAfterCompaction(main, boundary) };
    since = computeSessionAccounting(main, [], { env: {}, lastExtraction: baseline }).sinceExtraction;
  }
  return {
    contextTokens: accounting.contextTokens,
    lastExtraction,
    tokenGrowth: since.tokenGrowth,
    toolCallsSince: since.toolCalls,
    lastResponseHasToolCalls: accounting.lastResponseHasToolCalls,
  };
}
