/**
 * What a compaction lost: the user messages, file paths, code identifiers and error strings of
 * the conversation before that appear nowhere in the result (its kept messages and its summary).
 * Pure. "Appears" is a plain substring test over all the text of the result, so a summary that
 * quotes a path or a user message verbatim keeps it. User messages are what the user wrote:
 * Claude Code's command plumbing and meta messages are not listed.
 */
import type { LostItems } from '../../shared/protocol/compaction.js';
import type { ContentBlock, MessageParam } from '../../shared/protocol/messages.js';
import { ELLIPSIS, errorKeyLine, isCommandPlumbing } from '../transcripts/facts.js';

const SYSTEM_REMINDER = '<system-reminder>';

import { isRecord } from '../../shared/values.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import type { ConversationMessage } from '../transcripts/messages.js';

/** Each list is capped: a result stays small however much was dropped. */
export const MAX_LOST_ITEMS = 200;
/** Identifiers shorter than this are too common to be worth reporting. */
const MIN_IDENTIFIER_LENGTH = 4;
/** Tool input fields that name files. */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path'] as const;
/** Tool input fields holding code that was written. */
const CODE_FIELDS = ['new_string', 'content', 'new_source'] as const;
/** Absolute or ./-relative paths with an extension, as they appear in prose and commands. */
const PATH_IN_TEXT = /(?:^|[\s`'"(])((?:\/|\.\/)[\w.@+-]+(?:\/[\w.@+-]+)*\.\w{1,10})(?=$|[\s`'"),:;])/g;
/** Names declared in code (Python, JS/TS, Go, Rust, shell functions). */
const DECLARATION = /\b(?:def|class|function|func|fn|const|let|var|interface|type|struct|enum)\s+([A-Za-z_][\w]*)/g;
/** `name` or `name()` in backticks: how prose names code. */
const BACKTICKED = /`([A-Za-z_][\w.]*)(?:\(\))?`/g;

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : '')).join('\n');
}

/** Every piece of text a result carries, tool inputs included. */
export function allText(messages: readonly MessageParam[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      parts.push(message.content);
      continue;
    }
    for (const block of message.content as ContentBlock[]) {
      const record = block as Record<string, unknown>;
      if (typeof record.text === 'string') parts.push(record.text);
      if (typeof record.thinking === 'string') parts.push(record.thinking);
      if (block.type === 'tool_use') parts.push(JSON.stringify(record.input ?? {}));
      if (block.type === 'tool_result') parts.push(textOfContent(record.content));
    }
  }
  return parts.join('\n');
}

/**
 * The texts of meta user entries (command expansions, caveats, "continue" nudges). A meta entry
 * next to a prompt is merged into the prompt's message, so the message's isPrompt cannot tell
 * its blocks apart; their text can.
 */
function metaTexts(loaded: readonly LoadedEntry[]): Set<string> {
  const texts = new Set<string>();
  for (const { entry, raw } of loaded) {
    if (entry.type !== 'user' || !entry.isMeta || !isRecord(raw.message)) continue;
    const content = raw.message.content;
    // Compared block by block: merging keeps each entry's text blocks as they were.
    const blocks: unknown[] = typeof content === 'string' ? [{ text: content }] : Array.isArray(content) ? content : [];
    for (const block of blocks)
      if (isRecord(block) && typeof block.text === 'string' && block.text.trim() !== '') texts.add(block.text.trim());
  }
  return texts;
}

/**
 * Whether an error's key line is still there. errorKeyLine joins a traceback's first and last
 * lines and clips long lines, marking each gap with an ellipsis: kept when every piece is.
 */
function keepsError(text: string, keyLine: string): boolean {
  return keyLine
    .split(ELLIPSIS)
    .map((piece) => piece.trim())
    .every((piece) => text.includes(piece));
}

class Found {
  readonly items = new Set<string>();
  add(value: string | null | undefined): void {
    if (value && this.items.size < MAX_LOST_ITEMS * 4) this.items.add(value);
  }
}

/** The items of a conversation worth not losing. */
function itemsOf(messages: readonly ConversationMessage[], meta: ReadonlySet<string>): Record<keyof LostItems, Found> {
  const found = { userMessages: new Found(), filePaths: new Found(), identifiers: new Found(), errors: new Found() };
  // Hook context Claude Code injects is rendered as a <system-reminder>; the user did not write it.
  const wroteByUser = (text: string) =>
    text !== '' && !isCommandPlumbing(text) && !meta.has(text) && !text.startsWith(SYSTEM_REMINDER);
  const scanText = (text: string) => {
    for (const match of text.matchAll(PATH_IN_TEXT)) found.filePaths.add(match[1]);
    for (const match of text.matchAll(BACKTICKED))
      if ((match[1]?.length ?? 0) >= MIN_IDENTIFIER_LENGTH && !match[1]?.includes('/')) found.identifiers.add(match[1]);
  };
  for (const message of messages) {
    if (message.isSummary) continue;
    for (const block of message.content) {
      const record = block as Record<string, unknown>;
      if (block.type === 'text' && typeof record.text === 'string') {
        if (message.role === 'user' && message.isPrompt && wroteByUser(record.text.trim()))
          found.userMessages.add(record.text.trim());
        scanText(record.text);
      }
      if (block.type === 'tool_use' && isRecord(record.input)) {
        const input = record.input;
        for (const field of PATH_FIELDS) if (typeof input[field] === 'string') found.filePaths.add(input[field]);
        for (const field of CODE_FIELDS) {
          const code = input[field];
          if (typeof code !== 'string') continue;
          for (const match of code.matchAll(DECLARATION))
            if ((match[1]?.length ?? 0) >= MIN_IDENTIFIER_LENGTH) found.identifiers.add(match[1]);
        }
        if (typeof input.command === 'string') scanText(input.command);
      }
      if (block.type === 'tool_result' && record.is_error === true) {
        const output = textOfContent(record.content);
        // An empty result names no error worth reporting ("(no output)" appears nowhere).
        if (output.trim() !== '') found.errors.add(errorKeyLine(output));
      }
    }
  }
  return found;
}

/**
 * Items of `before` that appear nowhere in `after`. `loaded`, the entries `before` was built
 * from, tells meta messages merged into a prompt's message apart from what the user wrote.
 */
export function lostItems(
  before: readonly ConversationMessage[],
  after: readonly MessageParam[],
  loaded: readonly LoadedEntry[] = [],
): LostItems {
  const text = allText(after);
  const appears = (item: string) => text.includes(item);
  const missing = (found: Found, kept = appears) =>
    [...found.items].filter((item) => !kept(item)).slice(0, MAX_LOST_ITEMS);
  const items = itemsOf(before, metaTexts(loaded));
  return {
    userMessages: missing(items.userMessages),
    filePaths: missing(items.filePaths),
    identifiers: missing(items.identifiers),
    errors: missing(items.errors, (item) => keepsError(text, item)),
  };
}
