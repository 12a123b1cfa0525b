/**
 * Layer 4, reactive compaction: for the moment a request is already too large ("prompt too long",
 * HTTP 413), typically because of a massive tool output. Pure. It fits `limitTokens` whenever
 * anything can:
 *   1. The first user message stays (after a boundary it is the compact summary, with the prompt
 *      Claude Code sent after it, if any), and so does the first prompt's own text when it comes
 *      later: together they say what the session is about.
 *   2. Everything after it is API rounds: an assistant message with the user message answering it
 *      (its tool results, and whatever the user said next). Whole rounds are dropped, oldest
 *      first, so every tool_use keeps its tool_result. Rounds are not prompt-to-prompt spans:
 *      after a compaction Claude Code goes on without a new prompt, and then there are none.
 *   3. When the head and the newest round alone are still over the limit, the newest round's
 *      largest tool results (Read included) become head-and-tail previews that `toolResults.get`
 *      expands (reactive-preview.ts), largest first, until it fits; then the older rounds that
 *      still fit come back, newest first.
 *   4. Only when the head and the newest assistant message with every result previewed are over
 *      the limit: LimitTooSmall, saying that minimum.
 * The limit covers the whole request: it is checked against the request's fixed overhead (system
 * prompt, tools) plus JSON length / 4 times a margin of at least 4/3 (calibration.ts), so that what
 * fits here also fits once the API counts real tokens, and a request that fits is not refused.
 */

import type { CompactionAction } from '../../shared/protocol/compaction.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { ContentBlock, ToolResultBlock, ToolUseBlock } from '../../shared/protocol/messages.js';
import { DEFAULT_ESTIMATE_MARGIN, marginTokens, roughTokens } from '../../shared/transcript/tokens.js';
import {
  type ConversationMessage,
  estimateMessageTokens,
  normalize,
  toMessageParams,
} from '../transcripts/messages.js';
import { previewToolResult } from './reactive-preview.js';
import { contentChars } from './tool-result-text.js';

export interface ReactiveOptions {
  /** What JSON length / 4 is multiplied by before it is compared with the limit; at least 4/3. */
  margin?: number;
  /** What the request carries besides the messages (system prompt, tools): counted in the limit. */
  overheadTokens?: number;
  /** Named in the previews' pointers, for `toolResults.get`. */
  sessionId?: string;
}

export interface ReactiveResult {
  messages: ConversationMessage[];
  actions: CompactionAction[];
  margin: number;
  overheadTokens: number;
  /** The messages' JSON length / 4 × margin, rounded up. */
  messageTokens: number;
  /** What the limit was checked against: overheadTokens + messageTokens. */
  tokens: number;
}

interface Round {
  messages: ConversationMessage[];
  /** The first prompt's own blocks when they are in this round (and not in the head): they stay if it goes. */
  pinned: ConversationMessage | null;
}

function isToolResult(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

/** The blocks of a prompt message that are not tool results (the text the user typed, and what came with it). */
function ownBlocks(message: ConversationMessage): ConversationMessage {
  return { ...message, content: message.content.filter((block) => !isToolResult(block)), uuids: [...message.uuids] };
}

/** The first user message is the head; each assistant message starts a round. */
function split(messages: readonly ConversationMessage[]): { head: ConversationMessage[]; rounds: Round[] } {
  const [first, ...rest] = messages;
  if (first === undefined) return { head: [], rounds: [] };
  const rounds: Round[] = [];
  let prompted = first.isPrompt;
  for (const message of rest) {
    const current = rounds[rounds.length - 1];
    const round = message.role === 'assistant' || current === undefined ? { messages: [], pinned: null } : current;
    if (round !== current) rounds.push(round);
    round.messages.push(message);
    if (!prompted && message.isPrompt) {
      round.pinned = ownBlocks(message);
      prompted = true;
    }
  }
  return { head: [first], rounds };
}

/** JSON length of messages as one array (what the estimate measures), before normalizing. */
function jsonLength(messages: readonly ConversationMessage[]): number {
  return toMessageParams(messages).reduce((sum, message) => sum + JSON.stringify(message).length + 1, 1);
}

interface Plan {
  head: ConversationMessage[];
  rounds: Round[];
  /** Messages of the newest round replaced by ones with previewed results. */
  replaced: Map<ConversationMessage, ConversationMessage>;
}

/** The head, the pinned prompts of dropped rounds, and rounds `from` on, as sendable messages. */
function assemble(plan: Plan, from: number): ConversationMessage[] {
  const pinned = plan.rounds.slice(0, from).flatMap((round) => (round.pinned === null ? [] : [round.pinned]));
  const kept = plan.rounds
    .slice(from)
    .flatMap((round) => round.messages.map((message) => plan.replaced.get(message) ?? message));
  return normalize([...plan.head, ...pinned, ...kept]);
}

function newest(plan: Plan): ConversationMessage[] {
  return (plan.rounds[plan.rounds.length - 1]?.messages ?? []).map((message) => plan.replaced.get(message) ?? message);
}

/**
 * The first round to keep so that the result fits, keeping at least the newest; null when even
 * that is over. Lengths summed per round first (normalizing only ever shortens, so a sum that
 * fits is sure to), then exact checks for the rounds merging saved room for.
 */
function widestFit(
  plan: Plan,
  fits: (messages: ConversationMessage[]) => boolean,
  fitsChars: (chars: number) => boolean,
): number | null {
  const count = plan.rounds.length;
  if (count === 0) return fits(assemble(plan, 0)) ? 0 : null;
  const lengths = plan.rounds.map(
    (round, index) => (index === count - 1 ? jsonLength(newest(plan)) : jsonLength(round.messages)) - 1,
  );
  const pinnedLengths = plan.rounds.map((round) => (round.pinned === null ? 0 : jsonLength([round.pinned]) - 1));
  let total =
    jsonLength(plan.head) + pinnedLengths.reduce((sum, length) => sum + length, 0) - (pinnedLengths[count - 1] ?? 0);
  let from = count - 1;
  total += lengths[from] ?? 0;
  // Walk back from the newest while the sum fits: pinned text moves back into its round.
  while (from > 0 && fitsChars(total + (lengths[from - 1] ?? 0) - (pinnedLengths[from - 1] ?? 0))) {
    from -= 1;
    total += (lengths[from] ?? 0) - (pinnedLengths[from] ?? 0);
  }
  if (!fits(assemble(plan, from))) return null;
  while (from > 0 && fits(assemble(plan, from - 1))) from -= 1;
  return from;
}

function toolNames(messages: readonly ConversationMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages)
    for (const block of message.content) if (isToolUse(block)) names.set(block.id, block.name);
  return names;
}

/** The newest round's tool results by size, largest first (earlier first among equals). */
function previewCandidates(plan: Plan): { message: ConversationMessage; block: ToolResultBlock; length: number }[] {
  const round = plan.rounds[plan.rounds.length - 1]?.messages ?? [];
  const candidates = round.flatMap((message) =>
    message.content.filter(isToolResult).map((block) => ({ message, block, length: JSON.stringify(block).length })),
  );
  return candidates.sort((a, b) => b.length - a.length);
}

function replaceBlock(message: ConversationMessage, from: ToolResultBlock, to: ToolResultBlock): ConversationMessage {
  return { ...message, content: message.content.map((block) => (block === from ? to : block)) };
}

function limitTooSmall(limitTokens: number, minimumTokens: number, margin: number, overheadTokens: number): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    'LimitTooSmall',
    `the summary, the first prompt and the newest assistant message with its tool results cut to previews take ${minimumTokens} tokens with the request's ${overheadTokens} of system prompt and tools (${overheadTokens} + JSON length / 4 × ${margin.toFixed(2)}), over the limit of ${limitTokens}`,
    { limitTokens, minimumTokens, margin, overheadTokens },
  );
}

/** Fits `messages` into `limitTokens` (module header); LimitTooSmall when nothing can. */
export function reactiveCompaction(
  messages: readonly ConversationMessage[],
  limitTokens: number,
  options: ReactiveOptions = {},
): ReactiveResult {
  const margin = Math.max(DEFAULT_ESTIMATE_MARGIN, options.margin ?? DEFAULT_ESTIMATE_MARGIN);
  const overheadTokens = Math.max(0, Math.ceil(options.overheadTokens ?? 0));
  const messageTokensOf = (kept: readonly ConversationMessage[]) =>
    marginTokens(JSON.stringify(toMessageParams(kept)).length, margin);
  const tokensOf = (kept: readonly ConversationMessage[]) => overheadTokens + messageTokensOf(kept);
  const fits = (kept: ConversationMessage[]) => tokensOf(kept) <= limitTokens;
  const fitsChars = (chars: number) => overheadTokens + marginTokens(chars, margin) <= limitTokens;
  const { head, rounds } = split(messages);
  const plan: Plan = { head, rounds, replaced: new Map() };
  const actions: CompactionAction[] = [];

  let from = widestFit(plan, fits, fitsChars);
  if (from === null) {
    const tools = toolNames(newest(plan));
    for (const candidate of previewCandidates(plan)) {
      const current = plan.replaced.get(candidate.message) ?? candidate.message;
      const preview = previewToolResult(candidate.block, options.sessionId ?? null);
      if (preview === null) continue;
      plan.replaced.set(candidate.message, replaceBlock(current, candidate.block, preview));
      const action: CompactionAction = {
        kind: 'previewed',
        id: candidate.block.tool_use_id,
        tokensBefore: roughTokens(contentChars(candidate.block.content)),
        tokensAfter: roughTokens(contentChars(preview.content)),
      };
      const tool = tools.get(candidate.block.tool_use_id);
      if (tool !== undefined) action.tool = tool;
      actions.push(action);
      if (fits(assemble(plan, Math.max(0, rounds.length - 1)))) break;
    }
    from = widestFit(plan, fits, fitsChars);
    if (from === null)
      throw limitTooSmall(
        limitTokens,
        tokensOf(assemble(plan, Math.max(0, rounds.length - 1))),
        margin,
        overheadTokens,
      );
  }
  const dropped: CompactionAction[] = rounds.slice(0, from).map((round) => ({
    kind: 'dropped-round',
    id: round.messages.flatMap((message) => message.uuids)[0] ?? '',
    tokensBefore: estimateMessageTokens(toMessageParams(round.messages)),
    tokensAfter: 0,
  }));
  const result = assemble(plan, from);
  const messageTokens = messageTokensOf(result);
  return {
    messages: result,
    actions: [...dropped, ...actions],
    margin,
    overheadTokens,
    messageTokens,
    tokens: overheadTokens + messageTokens,
  };
}
