/**
 * What a request of the session costs in the API's tokens, so that a limit on the whole request
 * (reactive compaction's `limitTokens`) can be checked against messages memd has only estimated
 * (JSON length / 4). Pure.
 *
 * The transcript says what the API counted: each assistant entry records its response's usage,
 * and input + cache writes + cache reads is every input token of the request that produced it.
 * That request carried the messages before the response and a fixed overhead besides (the system
 * prompt, the tool definitions, files Claude Code re-attaches: 3K to 41K on real sessions), so a
 * request is modelled as `overhead + k × estimate`. Dividing one request's tokens by its messages'
 * estimate alone made the overhead a multiplier on every message token (margins of 2.5 to 16 on
 * short sessions, and limits the request already fit in refused). The difference between
 * successive responses cancels the overhead and gives k; k is never below
 * DEFAULT_ESTIMATE_MARGIN, the measured 4/3, so a session without usage still gets it.
 */
import { CHARS_PER_TOKEN, DEFAULT_ESTIMATE_MARGIN } from '../../shared/transcript/tokens.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import { type ConversationMessage, toMessageParams } from '../transcripts/messages.js';

export interface RequestModel {
  /** k: what JSON length / 4 of the messages is multiplied by; max(DEFAULT_ESTIMATE_MARGIN, measured). */
  margin: number;
  /** Tokens per estimated token between successive responses; null without two that say it. */
  measured: number | null;
  /** What a request carries besides its messages (system prompt, tools), in the API's tokens. */
  overhead: number;
}

/**
 * Successive responses differ by the messages added between them and nothing else, so their
 * difference cancels the overhead. Less than this many estimated tokens of difference in all is
 * too little to measure a rate by (the few tokens of an attachment or a reminder would swing it).
 */
const MIN_MEASURED_SPAN = 500;

interface Measured {
  tokens: number;
  /** JSON length / 4 of the messages sent with it, unrounded. */
  estimated: number;
}

/**
 * Input tokens each assistant entry's request cost, by uuid; entries reporting none are left out,
 * and so are those written before `boundaryOffset`: a compaction's preserved segment was answered
 * in the context before it (one such response recorded 189K tokens beside a 20K conversation).
 */
function inputTokensByUuid(loaded: readonly LoadedEntry[], boundaryOffset: number): Map<string, number> {
  const tokens = new Map<string, number>();
  for (const { entry } of loaded) {
    if (entry.type !== 'assistant' || entry.uuid === null || entry.usage === null || entry.offset < boundaryOffset)
      continue;
    const input = entry.usage.input + entry.usage.cacheCreation + entry.usage.cacheRead;
    // Claude Code's synthetic messages ("No response requested.") record zero usage: no request.
    if (input > 0) tokens.set(entry.uuid, input);
  }
  return tokens;
}

/** Every response of the conversation that recorded usage, oldest first, with what it was sent. */
function measuredRequests(
  messages: readonly ConversationMessage[],
  loaded: readonly LoadedEntry[],
  boundaryOffset: number,
): Measured[] {
  const counted = inputTokensByUuid(loaded, boundaryOffset);
  const requests: Measured[] = [];
  // JSON length of messages[0..index) as one array, "[" + items joined by "," + "]", by prefix sums.
  let items = 0;
  for (const [index, message] of messages.entries()) {
    if (index > 0 && message.role === 'assistant') {
      // A merged message can hold several responses; its first one was sent exactly what precedes it.
      const tokens = message.uuids.map((uuid) => counted.get(uuid)).find((value) => value !== undefined);
      if (tokens !== undefined) requests.push({ tokens, estimated: (items + index + 1) / CHARS_PER_TOKEN });
    }
    items += JSON.stringify(toMessageParams([message])[0]).length;
  }
  return requests;
}

/** The rate between successive responses: the sum of their growths in tokens over the sum in estimate. */
function measuredRate(requests: readonly Measured[]): number | null {
  let tokens = 0;
  let estimated = 0;
  for (let index = 1; index < requests.length; index++) {
    const grownTokens = (requests[index] as Measured).tokens - (requests[index - 1] as Measured).tokens;
    const grownEstimate = (requests[index] as Measured).estimated - (requests[index - 1] as Measured).estimated;
    // A request that shrank or stood still (Claude Code cleared old tool results) says nothing of the rate.
    if (grownTokens <= 0 || grownEstimate <= 0) continue;
    tokens += grownTokens;
    estimated += grownEstimate;
  }
  return estimated >= MIN_MEASURED_SPAN ? tokens / estimated : null;
}

/**
 * The session's requests as `overhead + k × estimate` (module header). `k` is the rate between
 * successive responses, never below 4/3; `boundaryOffset` is the active compact boundary's byte
 * offset in the transcript (responses before it are not measured). The overhead is the largest of each recorded request's
 * tokens less k × its estimate, so the model never predicts less than any request recorded, and
 * with k at least the true rate it errs high for anything larger than the first request (a
 * compacted conversation always keeps the first message that request carried).
 */
export function requestModel(
  messages: readonly ConversationMessage[],
  loaded: readonly LoadedEntry[],
  boundaryOffset = -1,
): RequestModel {
  const requests = measuredRequests(messages, loaded, boundaryOffset);
  const measured = measuredRate(requests);
  const margin = Math.max(DEFAULT_ESTIMATE_MARGIN, measured ?? DEFAULT_ESTIMATE_MARGIN);
  const overhead = requests.reduce(
    (largest, request) => Math.max(largest, Math.ceil(request.tokens - request.estimated * margin)),
    0,
  );
  return { margin, measured, overhead };
}

/**
 * What every request of the session carries besides its messages (the system prompt, the tool
 * definitions): the first response's recorded input tokens less the scaled estimate of the
 * messages sent with it; 0 without a response that recorded usage. A compaction leaves it as it is.
 */
export function requestOverhead(messages: readonly ConversationMessage[], loaded: readonly LoadedEntry[]): number {
  const first = measuredRequests(messages, loaded, -1)[0];
  return first === undefined
    ? 0
    : Math.max(0, Math.round(first.tokens - Math.ceil(first.estimated) * DEFAULT_ESTIMATE_MARGIN));
}
