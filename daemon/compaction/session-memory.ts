/**
 * Layer 3 with Layer 2's work: auto-compaction from the session memory (`summary.md`) instead of
 * a fresh summary. Pure. The memory covers the conversation up to its last summarized message;
 * what came after it is kept verbatim, and the kept part is extended back so the model keeps some
 * recent context word for word (DESIGN.md §5: at least 10,000 tokens and 5 text messages, at most
 * 40,000 tokens, never across the last compact boundary). The messages given start after that
 * boundary, so their start is the limit.
 *
 * The kept part starts only where the API accepts it: at an assistant message, or at a user
 * message without tool results (a tool_result needs the tool_use before it), and never between
 * two messages of one response (`message.id`).
 */
import {
  CONTINUATION_CLOSING,
  CONTINUATION_OPENING,
  RECENT_PRESERVED,
  TRANSCRIPT_POINTER,
} from '../../shared/transcript/compaction-texts.js';
import { isBareTemplate, stripInstructions } from '../extraction/template.js';
import {
  type ConversationMessage,
  estimateMessageTokens,
  normalize,
  toMessageParams,
} from '../transcripts/messages.js';

export interface SessionMemoryLimits {
  /** Recent context the model keeps word for word, at least (when the conversation has it). */
  minKeepTokens: number;
  /** Messages with text kept, at least: tool traffic alone does not say what was going on. */
  minKeepTextMessages: number;
  /** The kept part never grows past this by extension: the point is to free the context. */
  maxKeepTokens: number;
}

/** DESIGN.md §5, Claude Code's sessionMemoryCompact defaults. */
export const DEFAULT_SESSION_MEMORY_LIMITS: SessionMemoryLimits = {
  minKeepTokens: 10_000,
  minKeepTextMessages: 5,
  maxKeepTokens: 40_000,
};

export interface SessionMemoryInput {
  /** The content of `summary.md`; null or undefined when there is none. */
  memory: string | null | undefined;
  /** The uuid of the last message the memory covers; null when unknown. */
  lastSummarizedUuid: string | null | undefined;
  /** The transcript, named in the summary message so the model can read details back. */
  transcriptPath?: string;
}

export interface SessionMemoryCompaction {
  messages: ConversationMessage[];
  /** The first uuid of the first message kept verbatim, or null when nothing is kept. */
  keptFromUuid: string | null;
  /** The session memory as it went into the summary message (trimmed). */
  summary: string;
}

export interface ContinuationOptions {
  transcriptPath?: string;
  /** Whether messages follow the summary verbatim. */
  recentMessagesPreserved?: boolean;
}

/** The text of the summary message, worded as Claude Code words it. */
export function continuationText(summary: string, options: ContinuationOptions = {}): string {
  let text = `${CONTINUATION_OPENING}\n\n${summary.trim()}`;
  if (options.transcriptPath !== undefined) text += `\n\n${TRANSCRIPT_POINTER}${options.transcriptPath}`;
  if (options.recentMessagesPreserved === true) text += `\n\n${RECENT_PRESERVED}`;
  return `${text}\n${CONTINUATION_CLOSING}`;
}

/** The user message that opens a compacted conversation. */
export function continuationMessage(summary: string, options: ContinuationOptions = {}): ConversationMessage {
  return {
    role: 'user',
    content: [{ type: 'text', text: continuationText(summary, options) }],
    uuids: [],
    messageId: null,
    isPrompt: false,
    isSummary: true,
  };
}

/** One message's share of the conservative estimate (JSON length / 4, rounded up). */
export function messageTokens(message: ConversationMessage): number {
  return estimateMessageTokens(toMessageParams([message]));
}

function hasText(message: ConversationMessage): boolean {
  return message.content.some((block) => block.type === 'text');
}

/**
 * For each index, the earliest index the kept part must reach if it starts there: a kept
 * assistant message drags in the earlier messages of its response.
 */
function responseReach(messages: readonly ConversationMessage[]): number[] {
  const firstOfId = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && message.messageId !== null && !firstOfId.has(message.messageId))
      firstOfId.set(message.messageId, index);
  });
  const reach = new Array<number>(messages.length);
  let lowest = Number.POSITIVE_INFINITY;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as ConversationMessage;
    const first =
      message.role === 'assistant' && message.messageId !== null ? firstOfId.get(message.messageId) : undefined;
    if (first !== undefined) lowest = Math.min(lowest, first);
    reach[index] = lowest;
  }
  return reach;
}

/**
 * Where the kept part starts (messages.length when nothing is kept). Everything after the last
 * summarized message stays, however large: the memory does not cover it. With the uuid unknown
 * (null, or not in these messages), the kept part is chosen by the token rules from the end.
 */
export function keptStartIndex(
  messages: readonly ConversationMessage[],
  lastSummarizedUuid: string | null | undefined,
  limits: SessionMemoryLimits = DEFAULT_SESSION_MEMORY_LIMITS,
): number {
  const reach = responseReach(messages);
  const canStartAt = (index: number): boolean => {
    const message = messages[index] as ConversationMessage;
    const hasResults = message.role === 'user' && message.content.some((block) => block.type === 'tool_result');
    return !hasResults && (reach[index] ?? index) >= index;
  };
  const summarized =
    lastSummarizedUuid == null ? -1 : messages.findIndex((message) => message.uuids.includes(lastSummarizedUuid));
  let start = summarized === -1 ? messages.length : summarized + 1;
  // The unsummarized tail may begin with tool results: their tool_use comes along.
  while (start > 0 && start < messages.length && !canStartAt(start)) start--;

  let tokens = 0;
  let texts = 0;
  for (let index = start; index < messages.length; index++) {
    tokens += messageTokens(messages[index] as ConversationMessage);
    if (hasText(messages[index] as ConversationMessage)) texts++;
  }
  const enough = (keptTokens: number, keptTexts: number) =>
    keptTokens >= limits.maxKeepTokens ||
    (keptTokens >= limits.minKeepTokens && keptTexts >= limits.minKeepTextMessages);
  if (enough(tokens, texts)) return start;

  // Walk back message by message; commit only at places the kept part can start.
  let pendingTokens = tokens;
  let pendingTexts = texts;
  for (let index = start - 1; index >= 0; index--) {
    const message = messages[index] as ConversationMessage;
    pendingTokens += messageTokens(message);
    if (hasText(message)) pendingTexts++;
    if (pendingTokens > limits.maxKeepTokens) break;
    if (!canStartAt(index)) continue;
    start = index;
    if (enough(pendingTokens, pendingTexts)) break;
  }
  return start;
}

/**
 * The compacted conversation: the session memory as the summary message, then the kept messages.
 * Null when there is no memory, or only the empty template.
 */
export function sessionMemoryCompaction(
  messages: readonly ConversationMessage[],
  input: SessionMemoryInput,
  limits: Partial<SessionMemoryLimits> = {},
): SessionMemoryCompaction | null {
  // The template's instructions in an older summary.md are no part of what the model is told.
  const memory = stripInstructions(input.memory?.trim() ?? '');
  if (memory === '' || isBareTemplate(memory)) return null;
  const start = keptStartIndex(messages, input.lastSummarizedUuid, { ...DEFAULT_SESSION_MEMORY_LIMITS, ...limits });
  const kept = messages.slice(start);
  const summaryMessage = continuationMessage(memory, {
    ...(input.transcriptPath === undefined ? {} : { transcriptPath: input.transcriptPath }),
    recentMessagesPreserved: kept.length > 0,
  });
  // A kept part that starts with a user message joins the summary message: roles alternate.
  return {
    messages: normalize([summaryMessage, ...kept]),
    keptFromUuid: kept.flatMap((message) => message.uuids)[0] ?? null,
    summary: memory,
  };
}
