/**
 * The CompactionResult a layer's messages make, in one place for every method: the context
 * figures (the session's count before, what the layer freed after), the boundary it starts from,
 * what was lost, and the `summarized` action of a summary. Pure: service.ts runs the layers and
 * hands their messages here.
 */
import type { CompactionAction, CompactionMethod, CompactionResult } from '../../shared/protocol/compaction.js';
import { computeSessionAccounting } from '../../shared/transcript/accounting.js';
import { DEFAULT_ESTIMATE_MARGIN } from '../../shared/transcript/tokens.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import { readTranscript } from '../transcripts/facts.js';
import { type ConversationMessage, estimateMessageTokens, toMessageParams } from '../transcripts/messages.js';
import { requestOverhead } from './calibration.js';
import { allText, lostItems } from './lost.js';
import { sessionFacts, survivalOf } from './survival.js';

/**
 * `preTokens` is the session's context as sessions.get counts it (the last response's usage plus
 * the estimate of what followed), so a compaction, the context bar and the thresholds show one
 * figure. `postTokens` takes away what the layer freed, measured in the JSON-length estimate and
 * scaled by DEFAULT_ESTIMATE_MARGIN into the same tokens (what the estimate undercounts).
 */
export function contextFigures(
  conversation: SessionConversation,
  before: number,
  after: number,
): { preTokens: number; postTokens: number } {
  const preTokens = computeSessionAccounting(conversation.entries, [], { env: {} }).contextTokens;
  const moved = Math.round(preTokens - (before - after) * DEFAULT_ESTIMATE_MARGIN);
  if (after >= before) return { preTokens, postTokens: moved };
  const messagesAfter = Math.ceil(after * DEFAULT_ESTIMATE_MARGIN);
  if (moved >= messagesAfter) return { preTokens, postTokens: moved };
  // "Freed" exceeded what the context held: tool results Claude Code had already cleared from its
  // context are whole in memd's messages. The next request carries the messages left and the
  // system prompt and tools, measured from the session's first response.
  return {
    preTokens,
    postTokens: Math.min(preTokens, messagesAfter + requestOverhead(conversation.messages, conversation.loaded)),
  };
}

/** The result of `messages` replacing the conversation's; `extra` names what the method adds or overrides. */
export function compactionResult(
  conversation: SessionConversation,
  method: CompactionMethod,
  messages: readonly ConversationMessage[],
  extra: Partial<CompactionResult> = {},
): CompactionResult {
  const before = toMessageParams(conversation.messages);
  const after = toMessageParams(messages);
  const boundary = conversation.active.boundary;
  return {
    sessionId: conversation.sessionId,
    method,
    messages: after,
    boundary: boundary?.uuid
      ? {
          uuid: boundary.uuid,
          trigger: boundary.compact?.trigger ?? 'unknown',
          preTokens: boundary.compact?.preTokens ?? null,
        }
      : null,
    summary: null,
    ...contextFigures(conversation, estimateMessageTokens(before), estimateMessageTokens(after)),
    keptFromUuid: null,
    actions: [],
    lost: lostItems(conversation.messages, after, conversation.loaded),
    survival: survivalOf(sessionFacts(readTranscript(conversation.loaded)), allText(after)),
    ...extra,
  };
}

/** The action of a summary that replaced the whole conversation. */
export function summarized(conversation: SessionConversation, summary: string): CompactionAction {
  return {
    kind: 'summarized',
    id: conversation.messages[0]?.uuids[0] ?? '',
    tokensBefore: estimateMessageTokens(toMessageParams(conversation.messages)),
    tokensAfter: estimateMessageTokens([{ role: 'user', content: summary }]),
  };
}
