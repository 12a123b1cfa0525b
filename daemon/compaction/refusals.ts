/**
 * The refusals of a compaction that would not help (Conflict, `NothingToCompact`): a conversation
 * with no message to send, and a result no smaller than the conversation it replaces. The message
 * starts with Claude Code's own words (errors.ts); `data` has memd's figures. They are the
 * session's case, not a failed compaction, so the circuit breaker does not count them (auto-runs.ts).
 */
import type { CompactionMethod, CompactionResult } from '../../shared/protocol/compaction.js';
import { ErrorCode, NOT_ENOUGH_MESSAGES, RpcError } from '../../shared/protocol/errors.js';
import { computeSessionAccounting } from '../../shared/transcript/accounting.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import { estimateMessageTokens, toMessageParams } from '../transcripts/messages.js';

/** A compaction that would not help: Claude Code's words, then memd's figures (errors.ts). */
function nothingToCompact(sessionId: string, why: string, data: Record<string, unknown>): RpcError {
  return new RpcError(
    ErrorCode.Conflict,
    'NothingToCompact',
    `${NOT_ENOUGH_MESSAGES} Session ${sessionId} ${why}; nothing was changed`,
    { sessionId, ...data },
  );
}

/**
 * Every method refuses a conversation with no message to send: the Messages API takes no empty
 * `messages`. The loaders bridge a broken parent chain (conversation.ts), so this is a transcript
 * with no prompt at all, or only bookkeeping.
 */
export function requireMessages(conversation: SessionConversation, method: CompactionMethod | 'auto'): void {
  if (conversation.messages.length > 0) return;
  const entries = conversation.active.entries.length;
  const why =
    entries === 0
      ? 'has no message to send: its transcript holds no conversation entry'
      : `has no message to send: its active conversation (${entries} entr${entries === 1 ? 'y' : 'ies'}) has no user message before its replies (a trimmed or partly written transcript)`;
  throw nothingToCompact(conversation.sessionId, why, {
    method,
    messages: 0,
    messageTokens: 0,
    preTokens: computeSessionAccounting(conversation.entries, [], { env: {} }).contextTokens,
  });
}

const count = (tokens: number): string => tokens.toLocaleString('en-US');

/** Whether a compaction's messages are smaller than the conversation's, in the one estimate. */
export function shrinks(conversation: SessionConversation, done: CompactionResult): boolean {
  return estimateMessageTokens(done.messages) < estimateMessageTokens(toMessageParams(conversation.messages));
}

/**
 * A summary at least as large as the conversation it replaces would grow the context: refused, as
 * the conversation is already as small as compaction would make it.
 */
export function refuseGrowth(conversation: SessionConversation, done: CompactionResult): void {
  if (shrinks(conversation, done)) return;
  const messageTokens = estimateMessageTokens(toMessageParams(conversation.messages));
  const summaryTokens = estimateMessageTokens(done.messages);
  throw nothingToCompact(
    conversation.sessionId,
    `holds ${conversation.messages.length} message${conversation.messages.length === 1 ? '' : 's'} of ${count(messageTokens)} tokens; a ${done.method} compaction would make them ${count(summaryTokens)} (context ${count(done.preTokens)} → ${count(done.postTokens)} tokens)`,
    {
      method: done.method,
      messages: conversation.messages.length,
      messageTokens,
      summaryTokens,
      preTokens: done.preTokens,
      postTokens: done.postTokens,
    },
  );
}
