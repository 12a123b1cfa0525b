/**
 * Layer 4, reactive compaction: after a "prompt too long" (HTTP 413), drop the oldest whole API
 * rounds until the conservative estimate fits the limit. Pure. A round is a user prompt with the
 * assistant's reply and the tool results it got, up to the next prompt; dropping whole rounds
 * keeps every tool_use with its tool_result. The compact summary and the first user message
 * always stay: they say what the session is about.
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { CompactionAction } from '../../shared/protocol/results.js';
import { estimateTokens } from '../../shared/transcript/tokens.js';
import { estimateMessageTokens, normalize, toMessageParams, type ConversationMessage } from './messages.js';

export interface ReactiveResult {
  messages: ConversationMessage[];
  actions: CompactionAction[];
}

interface Round {
  messages: ConversationMessage[];
}

/** The first prompt and any summary before it stay; everything else is in rounds, oldest first. */
function split(messages: readonly ConversationMessage[]): { head: ConversationMessage[]; rounds: Round[] } {
  const head: ConversationMessage[] = [];
  const rounds: Round[] = [];
  let index = 0;
  // Leading summary (and whatever Claude Code put before the first prompt).
  while (index < messages.length && !(messages[index] as ConversationMessage).isPrompt) head.push(messages[index++] as ConversationMessage);
  // The first user message itself; its reply is the oldest round.
  if (index < messages.length) head.push(messages[index++] as ConversationMessage);
  let current: Round | null = null;
  for (; index < messages.length; index++) {
    const message = messages[index] as ConversationMessage;
    if (current === null || message.isPrompt) {
      current = { messages: [] };
      rounds.push(current);
    }
    current.messages.push(message);
  }
  return { head, rounds };
}

function tokensOf(messages: readonly ConversationMessage[]): number {
  return estimateMessageTokens(toMessageParams(messages));
}

/** JSON length of messages as one array, as estimateMessageTokens measures it (before normalizing). */
function jsonLength(messages: readonly ConversationMessage[]): number {
  return toMessageParams(messages).reduce((sum, message) => sum + JSON.stringify(message).length + 1, 1);
}

/** Drops the oldest rounds until the messages fit `limitTokens`; RpcError when even the head and the last round do not. */
export function reactiveCompaction(messages: readonly ConversationMessage[], limitTokens: number): ReactiveResult {
  const { head, rounds } = split(messages);
  const actions: CompactionAction[] = [];
  // A first cut from lengths measured once (a session has hundreds of rounds), then exact checks:
  // normalizing only ever removes content, so the estimate never undercounts what is kept.
  const roundLengths = rounds.map((round) => jsonLength(round.messages));
  let total = jsonLength(head) + roundLengths.reduce((sum, length) => sum + length, 0);
  let first = 0;
  const drop = () => {
    const dropped = rounds[first] as Round;
    total -= roundLengths[first] ?? 0;
    first += 1;
    actions.push({
      kind: 'dropped-round',
      id: dropped.messages.flatMap((message) => message.uuids)[0] ?? '',
      tokensBefore: tokensOf(dropped.messages),
      tokensAfter: 0,
    });
  };
  while (first < rounds.length - 1 && estimateTokens(total) > limitTokens) drop();
  for (;;) {
    const result = normalize([...head, ...rounds.slice(first).flatMap((round) => round.messages)]);
    const tokens = tokensOf(result);
    if (tokens <= limitTokens) return { messages: result, actions };
    if (first >= rounds.length - 1) {
      throw new RpcError(ErrorCode.InvalidParams, 'LimitTooSmall', `the summary, the first user message and the last round alone take ${tokens} tokens, over the limit of ${limitTokens}`, {
        limitTokens,
        minimumTokens: tokens,
      });
    }
    drop();
  }
}
