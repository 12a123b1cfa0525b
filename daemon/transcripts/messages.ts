/**
 * The active conversation as Messages API messages. Pure: takes the loaded entries in
 * conversation order (transcript/conversation.ts) and returns messages a client can send as they
 * are: roles alternate and start with the user; split assistant entries of one `message.id` are
 * one message; every tool_use has its tool_result in the next message and no tool_result lacks
 * its tool_use; no text block is empty. Each message remembers the entries it came from.
 *
 * What is sent, as Claude Code sends it: user entries (prompts, tool results, meta messages,
 * command output, the compact summary), assistant entries, and the attachments Claude Code
 * renders as text for the model (hook context; see transcript/tokens.ts). Other attachment kinds
 * (listings, file snapshots) are Claude Code's own bookkeeping and are left out.
 */
import type {
  ContentBlock,
  MessageParam,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../../shared/protocol/messages.js';
import { estimateTokens } from '../../shared/transcript/tokens.js';
import { isRecord } from '../../shared/values.js';
import type { LoadedEntry } from './entries.js';

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  /** Uuids of the entries it was made from, in order. */
  uuids: string[];
  /** message.id of an assistant message (the first, when several were merged). */
  messageId: string | null;
  /** A user message with text of its own (not only tool results): where an API round starts. */
  isPrompt: boolean;
  /** The compact summary Claude Code wrote after a boundary. */
  isSummary: boolean;
}

/** Attachment kinds Claude Code turns into text the model sees (transcript/tokens.ts renders them). */
const RENDERED_ATTACHMENTS = new Set(['hook_additional_context', 'hook_success', 'async_hook_response']);

function isBlock(value: unknown): value is ContentBlock {
  return isRecord(value) && typeof value.type === 'string';
}

function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isBlock).map((block) => ({ ...block }) as ContentBlock);
}

function isToolResult(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

/** The API refuses empty text blocks; whitespace-only text is as empty to it. */
function hasContent(block: ContentBlock): boolean {
  return (
    block.type !== 'text' || (typeof (block as TextBlock).text === 'string' && (block as TextBlock).text.trim() !== '')
  );
}

function attachmentText(
  raw: Record<string, unknown>,
  render: (attachment: Record<string, unknown>) => string[],
): ContentBlock[] {
  const attachment = raw.attachment;
  if (!isRecord(attachment) || typeof attachment.type !== 'string' || !RENDERED_ATTACHMENTS.has(attachment.type))
    return [];
  return render(attachment).map((text) => ({ type: 'text', text }));
}

/** One message per entry that reaches the model, before merging. */
function messageOf(
  loaded: LoadedEntry,
  render: (attachment: Record<string, unknown>) => string[],
): ConversationMessage | null {
  const { entry, raw } = loaded;
  const uuids = entry.uuid === null ? [] : [entry.uuid];
  const message = isRecord(raw.message) ? raw.message : null;
  if (entry.type === 'assistant') {
    const content = blocksOf(message?.content).filter(hasContent);
    return content.length === 0
      ? null
      : { role: 'assistant', content, uuids, messageId: entry.messageId, isPrompt: false, isSummary: false };
  }
  let content: ContentBlock[];
  if (entry.type === 'user') content = blocksOf(message?.content).filter(hasContent);
  else if (entry.type === 'attachment') content = attachmentText(raw, render);
  else return null;
  if (content.length === 0) return null;
  const isPrompt =
    entry.type === 'user' && !entry.isMeta && !entry.isCompactSummary && content.some((block) => !isToolResult(block));
  return { role: 'user', content, uuids, messageId: null, isPrompt, isSummary: entry.isCompactSummary };
}

/** Tool results first: the API wants them at the start of the message that answers the tools. */
function joinUser(into: ConversationMessage, next: ConversationMessage): void {
  const all = [...into.content, ...next.content];
  into.content = [...all.filter(isToolResult), ...all.filter((block) => !isToolResult(block))];
  into.uuids.push(...next.uuids);
  into.isPrompt ||= next.isPrompt;
  into.isSummary ||= next.isSummary;
}

function join(into: ConversationMessage, next: ConversationMessage): void {
  if (into.role === 'user') {
    joinUser(into, next);
    return;
  }
  into.content.push(...next.content);
  into.uuids.push(...next.uuids);
}

/**
 * Merges the split entries of one response, even when tool results were written between them:
 * a later entry of the same message.id joins the earlier message if only tool-result messages
 * came since (they then follow the whole response).
 */
function mergeSplitResponses(messages: ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.messageId !== null) {
      let at = out.length - 1;
      while (at >= 0 && out[at]?.role === 'user' && (out[at] as ConversationMessage).content.every(isToolResult)) at--;
      const earlier = out[at];
      if (earlier !== undefined && earlier.role === 'assistant' && earlier.messageId === message.messageId) {
        join(earlier, message);
        continue;
      }
    }
    out.push(message);
  }
  return out;
}

function mergeRoles(messages: readonly ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (last !== undefined && last.role === message.role) join(last, message);
    else out.push({ ...message, content: [...message.content], uuids: [...message.uuids] });
  }
  return out;
}

/**
 * Keeps only tool_use blocks answered in the next message and tool_result blocks answering the
 * previous one; then drops emptied messages and merges the roles that meet.
 */
function pairTools(messages: ConversationMessage[]): ConversationMessage[] {
  const paired = messages.map((message, index) => {
    if (message.role === 'assistant') {
      const next = messages[index + 1];
      const answered = new Set(
        next?.role === 'user' ? next.content.filter(isToolResult).map((block) => block.tool_use_id) : [],
      );
      return { ...message, content: message.content.filter((block) => !isToolUse(block) || answered.has(block.id)) };
    }
    const previous = messages[index - 1];
    const asked = new Set(
      previous?.role === 'assistant' ? previous.content.filter(isToolUse).map((block) => block.id) : [],
    );
    return {
      ...message,
      content: message.content.filter((block) => !isToolResult(block) || asked.has(block.tool_use_id)),
    };
  });
  return paired.filter((message) => message.content.length > 0);
}

/** Whether every tool_use is answered in the next message and every tool_result answers one. */
export function toolsArePaired(messages: readonly { role: string; content: string | ContentBlock[] }[]): boolean {
  for (const [index, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    const next = messages[index + 1];
    const previous = messages[index - 1];
    const nextResults = new Set(
      next && typeof next.content !== 'string'
        ? next.content.filter(isToolResult).map((block) => block.tool_use_id)
        : [],
    );
    const previousUses = new Set(
      previous && typeof previous.content !== 'string'
        ? previous.content.filter(isToolUse).map((block) => block.id)
        : [],
    );
    for (const block of message.content) {
      if (isToolUse(block) && (message.role !== 'assistant' || !nextResults.has(block.id))) return false;
      if (isToolResult(block) && (message.role !== 'user' || !previousUses.has(block.tool_use_id))) return false;
    }
  }
  return true;
}

/** Until nothing changes: pairing can empty a message, and merging can then pair differently. */
export function normalize(messages: readonly ConversationMessage[]): ConversationMessage[] {
  let current = mergeRoles(messages);
  for (let round = 0; round < messages.length + 1; round++) {
    const next = mergeRoles(pairTools(current));
    // The API wants a user message first.
    while (next[0]?.role === 'assistant') next.shift();
    if (
      next.length === current.length &&
      next.every((message, index) => message.content.length === current[index]?.content.length)
    )
      return next;
    current = next;
  }
  return current;
}

/** The loaded active conversation (conversation order) as normalized messages. */
export function buildMessages(
  loaded: readonly LoadedEntry[],
  render: (attachment: Record<string, unknown>) => string[],
): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  for (const entry of loaded) {
    const message = messageOf(entry, render);
    if (message !== null) messages.push(message);
  }
  return normalize(mergeSplitResponses(messages));
}

export function toMessageParams(messages: readonly ConversationMessage[]): MessageParam[] {
  return messages.map((message) => ({ role: message.role, content: message.content }));
}

/** DESIGN.md §5: the conservative estimate a limit is checked with (JSON length / 4, rounded up). */
export function estimateMessageTokens(messages: readonly MessageParam[]): number {
  return estimateTokens(JSON.stringify(messages).length);
}
