/**
 * How much the JSON-length estimate must be scaled so that a limit checked against it is not
 * exceeded once the API counts the real tokens. Pure.
 *
 * The transcript says what the API counted: each assistant entry records its response's usage,
 * and input + cache writes + cache reads is every input token of the request that produced it.
 * That request carried the messages before the response, so the newest response with usage,
 * divided by the estimate of the messages before it, is the session's own tokens-per-estimate.
 * It errs high, never low: the request also carried the system prompt and the tool definitions,
 * which are not messages, and any context Claude Code adds that memd does not send. The margin
 * is the larger of that ratio and DEFAULT_ESTIMATE_MARGIN, so a session without usage (or whose
 * Claude Code had cleared part of what memd would send) still gets the measured 4/3.
 */
import { DEFAULT_ESTIMATE_MARGIN } from '../../shared/transcript/tokens.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import { estimateMessageTokens, toMessageParams, type ConversationMessage } from '../transcripts/messages.js';

export interface EstimateMargin {
  /** What the JSON-length estimate is multiplied by: max(DEFAULT_ESTIMATE_MARGIN, measured). */
  margin: number;
  /** The session's tokens-per-estimate from its newest response with usage; null without one. */
  measured: number | null;
}

/** Input tokens each assistant entry's request cost, by uuid; entries reporting none are left out. */
function inputTokensByUuid(loaded: readonly LoadedEntry[]): Map<string, number> {
  const tokens = new Map<string, number>();
  for (const { entry } of loaded) {
    if (entry.type !== 'assistant' || entry.uuid === null || entry.usage === null) continue;
    const input = entry.usage.input + entry.usage.cacheCreation + entry.usage.cacheRead;
    // Claude Code's synthetic messages ("No response requested.") record zero usage: no request.
    if (input > 0) tokens.set(entry.uuid, input);
  }
  return tokens;
}

/**
 * The input tokens the API counted for the assistant message at `index` and the estimate of the
 * messages sent with it (all before it); null when none of its responses recorded usage.
 */
function measuredRequest(messages: readonly ConversationMessage[], counted: ReadonlyMap<string, number>, index: number): { tokens: number; estimated: number } | null {
  const message = messages[index] as ConversationMessage;
  if (message.role !== 'assistant') return null;
  // A merged message can hold several responses; its first one was sent exactly what precedes it.
  const tokens = message.uuids.map((uuid) => counted.get(uuid)).find((value) => value !== undefined);
  if (tokens === undefined) return null;
  return { tokens, estimated: estimateMessageTokens(toMessageParams(messages.slice(0, index))) };
}

export function estimateMargin(messages: readonly ConversationMessage[], loaded: readonly LoadedEntry[]): EstimateMargin {
  const counted = inputTokensByUuid(loaded);
  for (let index = messages.length - 1; index > 0; index--) {
    const request = measuredRequest(messages, counted, index);
    if (request === null) continue;
    const measured = request.tokens / request.estimated;
    return { margin: Math.max(DEFAULT_ESTIMATE_MARGIN, measured), measured };
  }
  return { margin: DEFAULT_ESTIMATE_MARGIN, measured: null };
}

/**
 * What every request of the session carries besides its messages (the system prompt, the tool
 * definitions): the first response's recorded input tokens less the scaled estimate of the
 * messages sent with it; 0 without a response that recorded usage. A compaction leaves it as it is.
 */
export function requestOverhead(messages: readonly ConversationMessage[], loaded: readonly LoadedEntry[]): number {
  const counted = inputTokensByUuid(loaded);
  for (let index = 1; index < messages.length; index++) {
    const request = measuredRequest(messages, counted, index);
    if (request !== null) return Math.max(0, Math.round(request.tokens - request.estimated * DEFAULT_ESTIMATE_MARGIN));
  }
  return 0;
}
