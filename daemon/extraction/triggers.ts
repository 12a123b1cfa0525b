/**
 * When a session's memory is extracted (DESIGN.md §5, issue 5 item 1), evaluated after every
 * commit of ingested lines. Pure: `triggerState` reads a session's main transcript entries and
 * where the last extraction stopped; `shouldExtract` applies the rules:
 *   - the first extraction once the context holds FIRST_EXTRACTION_TOKENS;
 *   - then once it grew by MIN_GROWTH_TOKENS, and either MIN_TOOL_CALLS tools were called or the
 *     last assistant turn called none (a natural break: the model stopped to answer).
 *
 * A compact boundary after the last extraction resets both baselines (the accounting's
 * sinceExtraction, shared/transcript/since-extraction.ts).
 */
import {
  computeSessionAccounting,
  type LastExtraction,
  type SessionAccounting,
} from '../../shared/transcript/accounting.js';
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

/** The figures the triggers read, as accounting (or a session's persisted aggregate) has them. */
export type TriggerFigures = Pick<SessionAccounting, 'contextTokens' | 'sinceExtraction' | 'lastResponseHasToolCalls'>;

export function triggerStateOf(figures: TriggerFigures, lastExtraction: LastExtraction | null): TriggerState {
  return {
    contextTokens: figures.contextTokens,
    lastExtraction,
    tokenGrowth: figures.sinceExtraction.tokenGrowth,
    toolCallsSince: figures.sinceExtraction.toolCalls,
    lastResponseHasToolCalls: figures.lastResponseHasToolCalls,
  };
}

/**
 * The trigger inputs of one session from its main transcript's entries in file order (sub-agent
 * transcripts never count: their context is not the session's).
 */
export function triggerState(main: readonly IndexedEntry[], lastExtraction: LastExtraction | null): TriggerState {
  return triggerStateOf(computeSessionAccounting(main, [], { env: {}, lastExtraction }), lastExtraction);
}
