/**
 * The report's conversation, files and errors, built one transcript line at a time (so that a
 * 80 MB session never sits in memory whole): prompts as the user typed them (Claude Code's own
 * XML rendered as one line or left out, as summaries quote them), the assistant's text and
 * thinking, each tool call with its result, compactions and their summaries. Everything is cut
 * to the report's limits, and past its budget the rest is only counted. Pure.
 */
import type {
  ConversationItem,
  CutText,
  ErrorLine,
  FileTouch,
  ReportConversation,
  ToolCall,
} from '../../shared/export/model.js';
import { readableUserText } from '../../shared/transcript/user-text.js';
import { isRecord } from '../../shared/values.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import { errorKeyLine, FILE_TOOLS, resultOf, textOf } from '../transcripts/facts.js';

export interface ReportLimits {
  /** A tool's output and input: enough to see what it did; the whole is in the transcript. */
  toolOutputChars: number;
  /** A prompt, reply, thinking or summary: a long paste is cut, a normal message never. */
  textChars: number;
  /** The conversation's texts in all: keeps an 80 MB session's report a file a browser opens. */
  totalChars: number;
  /** Failed calls listed; more are counted. */
  maxErrors: number;
}

export const REPORT_LIMITS: ReportLimits = {
  toolOutputChars: 2_000,
  textChars: 20_000,
  totalChars: 8_000_000,
  maxErrors: 200,
};

/** A call's one-line label: the first of these inputs it has, as search names calls. */
const LABEL_FIELDS = [
  'command',
  'file_path',
  'notebook_path',
  'path',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
  'skill',
] as const;
/** A label is one glance. */
const LABEL_CHARS = 160;
/** The user's `/compact` (with or without instructions), as readableUserText renders the command. */
const COMPACT_COMMAND = /^\/compact(\s|$)/;

/** `text` cut to `max` characters (never inside a surrogate pair), with how much was left out. */
export function cutText(text: string, max: number): CutText {
  if (text.length <= max) return { text, cutChars: 0 };
  const kept = text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '');
  return { text: kept, cutChars: text.length - kept.length };
}

export function callLabel(input: Record<string, unknown>): string {
  for (const field of LABEL_FIELDS) {
    const value = input[field];
    if (typeof value !== 'string' || value.trim() === '') continue;
    const line = value.replace(/\s+/g, ' ').trim();
    return line.length <= LABEL_CHARS ? line : `${line.slice(0, LABEL_CHARS - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
  }
  return '';
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

const sizeOf = (item: ConversationItem): number =>
  item.kind === 'tool' ? item.call.input.text.length : 'text' in item ? item.text.length : 0;

export interface ReportBody {
  conversation: ReportConversation;
  files: FileTouch[];
  errors: ErrorLine[];
  omittedErrors: number;
}

export interface ConversationBuilder {
  add(loaded: LoadedEntry): void;
  finish(): ReportBody;
}

export function createConversationBuilder(limits: ReportLimits = REPORT_LIMITS): ConversationBuilder {
  const items: ConversationItem[] = [];
  const calls = new Map<string, { call: ToolCall; at: string | null }>();
  const files = new Map<string, FileTouch>();
  const errors: ErrorLine[] = [];
  let omittedErrors = 0;
  let omittedItems = 0;
  let cutTexts = 0;
  let used = 0;
  /**
   * Where the last manual compaction's marker is, while nothing but its summary has followed it.
   * Claude Code writes the `/compact` command after the boundary and the summary it caused; the
   * report draws it before them, in the order the user saw it (issue 29).
   */
  let manualMarker: number | null = null;

  const cut = (text: string, max: number): CutText => {
    const result = cutText(text, max);
    if (result.cutChars > 0) cutTexts++;
    return result;
  };
  const push = (item: ConversationItem): void => {
    // Compaction marks are a line each and say where the conversation was cut: always kept.
    if (used >= limits.totalChars && item.kind !== 'compaction') {
      omittedItems++;
      return;
    }
    used += sizeOf(item);
    if (item.kind === 'prompt' && manualMarker !== null && COMPACT_COMMAND.test(item.text)) {
      items.splice(manualMarker, 0, item);
      manualMarker = null;
      return;
    }
    if (item.kind === 'compaction') manualMarker = item.trigger === 'manual' ? items.length : null;
    else if (item.kind !== 'summary') manualMarker = null;
    items.push(item);
  };
  const addError = (error: ErrorLine): void => {
    if (errors.length < limits.maxErrors) errors.push(error);
    else omittedErrors++;
  };
  const touch = (name: string, input: Record<string, unknown>): void => {
    const kind = FILE_TOOLS[name];
    const path =
      typeof input.file_path === 'string'
        ? input.file_path
        : typeof input.notebook_path === 'string'
          ? input.notebook_path
          : null;
    if (kind === undefined || path === null || path === '') return;
    let file = files.get(path);
    if (file === undefined) files.set(path, (file = { path, reads: 0, edits: 0, writes: 0 }));
    if (kind === 'read') file.reads++;
    else if (kind === 'edited') file.edits++;
    else file.writes++;
  };

  const addAssistant = (at: string | null, raw: Record<string, unknown>, content: unknown): void => {
    if (raw.isApiErrorMessage === true) {
      const text = textOf(content);
      addError({ at, tool: 'API', label: '', line: errorKeyLine(text) });
    }
    for (const block of blocksOf(content)) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '')
        push({ kind: 'assistant', at, ...cut(block.text.trim(), limits.textChars) });
      else if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim() !== '')
        push({ kind: 'thinking', at, ...cut(block.thinking.trim(), limits.textChars) });
      else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        const input = isRecord(block.input) ? block.input : {};
        const call: ToolCall = {
          id: block.id,
          name: block.name,
          label: callLabel(input),
          input: cut(JSON.stringify(input, null, 2) ?? '{}', limits.toolOutputChars),
          result: null,
        };
        calls.set(block.id, { call, at });
        touch(block.name, input);
        push({ kind: 'tool', at, call });
      }
    }
  };

  const addUser = (at: string | null, raw: Record<string, unknown>, content: unknown): void => {
    const typed: string[] = [];
    for (const block of blocksOf(content)) {
      if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
        const found = calls.get(block.tool_use_id);
        if (found === undefined) continue;
        const result = resultOf(block, raw.toolUseResult, 0, found.call.name);
        found.call.result = { ...cut(result.text, limits.toolOutputChars), failed: result.failed, exit: result.exit };
        // The call was counted when it was made; its output counts now (it is most of a report).
        used += found.call.result.text.length;
        if (result.failed)
          addError({ at, tool: found.call.name, label: found.call.label, line: errorKeyLine(result.text) });
      } else if (block.type === 'text' && typeof block.text === 'string') typed.push(readableUserText(block.text).text);
      else if (block.type === 'image') typed.push('[image]');
    }
    const text = typed.filter((part) => part.trim() !== '').join('\n\n');
    if (text.trim() !== '') push({ kind: 'prompt', at, ...cut(text.trim(), limits.textChars) });
  };

  return {
    add({ entry, raw }) {
      const at = entry.timestamp;
      const content = isRecord(raw.message) ? raw.message.content : undefined;
      if (entry.compact !== null)
        push({ kind: 'compaction', at, trigger: entry.compact.trigger, preTokens: entry.compact.preTokens });
      else if (entry.type === 'assistant') addAssistant(at, raw, content);
      else if (entry.type === 'user' && entry.isCompactSummary)
        push({ kind: 'summary', at, ...cut(textOf(content), limits.textChars) });
      // Meta messages are Claude Code's (caveats, skill bodies); only their tool results matter.
      else if (entry.type === 'user')
        addUser(at, raw, entry.isMeta ? blocksOf(content).filter((block) => block.type === 'tool_result') : content);
    },
    finish() {
      const touched = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return {
        conversation: {
          items,
          omittedItems,
          offBranchMessages: 0,
          cutTexts,
          limits: {
            toolOutputChars: limits.toolOutputChars,
            textChars: limits.textChars,
            totalChars: limits.totalChars,
          },
        },
        files: touched,
        errors,
        omittedErrors,
      };
    },
  };
}
