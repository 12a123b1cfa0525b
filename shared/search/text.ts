/**
 * What of a transcript entry the search index holds (issue 17): what people search for, each with
 * its kind. A user's typed prompt; the assistant's text; a tool call's input as its name and the
 * fields that say what it did (command, path, pattern, url, query, description); the key lines of
 * a failed tool call; and a tool's output, cut to SEARCH_OUTPUT_CHARS. Claude Code's own injected
 * text (reminders, command echoes, hook output) is not a prompt and is left out. Every text is
 * redacted (shared/text/redact.ts) and bounded. Pure: it reads a parsed line and nothing else.
 */
import type { SearchKind } from '../protocol/search.js';
import { readableUserText } from '../transcript/user-text.js';
import { redactSecrets } from '../text/redact.js';

/** A tool's output is searched by its start: enough for what it was about, small enough to index all. */
export const SEARCH_OUTPUT_CHARS = 1_000;
/**
 * A file's content as Read gave it, by less: its start says what the file is, and the rest is the
 * repository's to search (the read itself is found by its path, a tool text). Reads are half of
 * all tool output in a heavy user's history.
 */
export const SEARCH_FILE_OUTPUT_CHARS = 200;
/** A prompt or an assistant message is indexed up to this (a pasted file is not worth more). */
export const SEARCH_TEXT_CHARS = 8_000;
/** A tool call's input fields, joined. */
const SEARCH_INPUT_CHARS = 1_000;
/** The key lines of an error: those that name the failure, at most this many. */
const ERROR_LINES = 12;
const ERROR_LINE = /error|fail|exception|traceback|panic|cannot|denied|not found|undefined|assert|expected|exit code|fatal/i;
/** The tool input fields that say what a call did. */
const INPUT_FIELDS = ['command', 'file_path', 'path', 'pattern', 'glob', 'url', 'query', 'description', 'prompt', 'notebook_path', 'subagent_type'] as const;

export interface SearchText {
  kind: SearchKind;
  text: string;
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function cut(text: string, chars: number): string {
  const trimmed = text.trim();
  return trimmed.length <= chars ? trimmed : trimmed.slice(0, chars);
}

/** A tool result's content as text: a string, or the text blocks of an array. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function errorLines(text: string): string {
  const lines = text.split('\n').map((line) => line.trim());
  const key = lines.filter((line) => ERROR_LINE.test(line)).slice(0, ERROR_LINES);
  // A failure that names nothing recognizable is searched by its first lines.
  return (key.length > 0 ? key : lines.filter((line) => line !== '').slice(0, ERROR_LINES)).join('\n');
}

function toolInput(block: Json): string {
  const input = isRecord(block.input) ? block.input : {};
  const fields = INPUT_FIELDS.map((field) => input[field]).filter((value): value is string => typeof value === 'string' && value !== '');
  return [typeof block.name === 'string' ? block.name : 'tool', ...fields].join(' ');
}

function add(out: SearchText[], kind: SearchKind, text: string, chars: number): void {
  const bounded = cut(text, chars);
  if (bounded !== '') out.push({ kind, text: redactSecrets(bounded) });
}

function userTexts(message: Json, entry: Json, out: SearchText[]): void {
  const { content } = message;
  const typed = (raw: string) => (entry.isMeta === true || entry.isCompactSummary === true ? '' : readableUserText(raw).typed);
  if (typeof content === 'string') {
    add(out, 'prompt', typed(content), SEARCH_TEXT_CHARS);
    return;
  }
  if (!Array.isArray(content)) return;
  const prompt: string[] = [];
  const errors: string[] = [];
  const outputs: string[] = [];
  const blocks = content.filter(isRecord);
  // Claude Code describes the line's one tool result in `toolUseResult`: a Read's has the file.
  const fileRead = isRecord(entry.toolUseResult) && isRecord(entry.toolUseResult.file) && blocks.filter((block) => block.type === 'tool_result').length === 1;
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') prompt.push(typed(block.text));
    else if (block.type === 'tool_result') {
      const text = resultText(block.content);
      // Each result of parallel calls gets its share of the bound.
      if (block.is_error === true) errors.push(errorLines(text));
      else outputs.push(cut(text, fileRead ? SEARCH_FILE_OUTPUT_CHARS : SEARCH_OUTPUT_CHARS));
    }
  }
  add(out, 'prompt', prompt.filter((text) => text !== '').join('\n'), SEARCH_TEXT_CHARS);
  add(out, 'error', errors.join('\n'), SEARCH_OUTPUT_CHARS);
  add(out, 'output', outputs.join('\n'), SEARCH_OUTPUT_CHARS * 2);
}

function assistantTexts(message: Json, out: SearchText[]): void {
  if (!Array.isArray(message.content)) return;
  const text: string[] = [];
  const tools: string[] = [];
  for (const block of message.content.filter(isRecord)) {
    if (block.type === 'text' && typeof block.text === 'string') text.push(block.text);
    else if (block.type === 'tool_use') tools.push(toolInput(block));
  }
  add(out, 'assistant', text.join('\n'), SEARCH_TEXT_CHARS);
  add(out, 'tool', tools.join('\n'), SEARCH_INPUT_CHARS);
}

/** The searchable texts of one parsed transcript line, at most one per kind (the index keys them so). */
export function searchTexts(value: unknown): SearchText[] {
  if (!isRecord(value) || !isRecord(value.message)) return [];
  const out: SearchText[] = [];
  if (value.type === 'user') userTexts(value.message, value, out);
  else if (value.type === 'assistant') assistantTexts(value.message, out);
  return out;
}
