/**
 * What of a transcript entry the search index holds (issue 17): what people search for, each with
 * its kind. A user's typed prompt; the assistant's text; a tool call's input as its name and the
 * fields that say what it did (command, path, pattern, url, query, description); the key lines of
 * a failed tool call; and a tool's output, cut to SEARCH_OUTPUT_CHARS. What a Write, Edit,
 * MultiEdit or NotebookEdit wrote (its path and the written text's head) and the model's thinking
 * are texts of their own (issue 28). Claude Code's own injected text (reminders, command echoes,
 * hook output) is not a prompt and is left out. Every text is redacted (shared/text/redact.ts) and
 * bounded. Pure: it reads a parsed line and nothing else.
 */
import type { SearchKind } from '../protocol/search.js';
import { redactSecrets } from '../text/redact.js';
import { contentText } from '../transcript/content-text.js';
import { readableUserText } from '../transcript/user-text.js';

/** A tool's output is searched by its start: enough for what it was about, small enough to index all. */
export const SEARCH_OUTPUT_CHARS = 1_000;
/**
 * A file's content as Read gave it, by less: its start says what the file is, and the rest is the
 * repository's to search (the read itself is found by its path, a tool text). Reads are half of
 * all tool output in a heavy user's history.
 */
export const SEARCH_FILE_OUTPUT_CHARS = 200;
/**
 * A typed prompt or an assistant message is indexed whole up to this, which a typed one does not
 * reach (issue 28: a word at character 14,425 of a prompt was not found under the old 8,000); a
 * longer one is a paste (a log, a file), indexed by its head and its last SEARCH_TEXT_TAIL_CHARS.
 */
export const SEARCH_TEXT_CHARS = 64_000;
/** The end kept of a text past SEARCH_TEXT_CHARS: after a paste comes what the user asks of it. */
export const SEARCH_TEXT_TAIL_CHARS = 16_000;
/** Between the head and the tail of a text cut in its middle (not a word: nothing matches it). */
const MIDDLE_CUT = '\n…\n';
/**
 * What a Write, Edit, MultiEdit or NotebookEdit wrote, by its start (shared among the line's
 * calls): a file's start says what it is and holds most of a test file's cases; a whole file
 * is the repository's to search. Each call's path is kept whole besides.
 */
export const SEARCH_WRITE_CHARS = 8_000;
/** A written text's path, at most (a path longer is not one a user types). */
const SEARCH_WRITE_PATH_CHARS = 1_000;
/** The model's thinking, by its start: what it weighed comes first, and a long one rambles. */
export const SEARCH_THINKING_CHARS = 8_000;
/** A tool call's input fields, joined. */
const SEARCH_INPUT_CHARS = 1_000;
/** The key lines of an error: those that name the failure, at most this many. */
const ERROR_LINES = 12;
const ERROR_LINE =
  /error|fail|exception|traceback|panic|cannot|denied|not found|undefined|assert|expected|exit code|fatal/i;
/** The tool input fields that say what a call did. */
const INPUT_FIELDS = [
  'command',
  'file_path',
  'path',
  'pattern',
  'glob',
  'url',
  'query',
  'description',
  'prompt',
  'notebook_path',
  'subagent_type',
] as const;

export interface SearchText {
  kind: SearchKind;
  text: string;
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringField = (record: Json, field: string): string => (typeof record[field] === 'string' ? record[field] : '');

/** The tools that write a file, and the input fields that hold the path and what was written. */
const WRITE_TOOLS: Readonly<Record<string, { path: string; written: (input: Json) => string }>> = {
  Write: { path: 'file_path', written: (input) => stringField(input, 'content') },
  Edit: { path: 'file_path', written: (input) => stringField(input, 'new_string') },
  MultiEdit: {
    path: 'file_path',
    written: (input) =>
      (Array.isArray(input.edits) ? input.edits.filter(isRecord).map((edit) => stringField(edit, 'new_string')) : [])
        .filter((text) => text !== '')
        .join('\n'),
  },
  NotebookEdit: { path: 'notebook_path', written: (input) => stringField(input, 'new_source') },
};

function cut(text: string, chars: number): string {
  const trimmed = text.trim();
  return trimmed.length <= chars ? trimmed : trimmed.slice(0, chars);
}

/** A tool result's content as text: a string, or the text blocks of an array. */
export function resultText(content: unknown): string {
  return contentText(content, '\n');
}

function errorLines(text: string): string {
  const lines = text.split('\n').map((line) => line.trim());
  const key = lines.filter((line) => ERROR_LINE.test(line)).slice(0, ERROR_LINES);
  // A failure that names nothing recognizable is searched by its first lines.
  return (key.length > 0 ? key : lines.filter((line) => line !== '').slice(0, ERROR_LINES)).join('\n');
}

function toolInput(block: Json): string {
  const input = isRecord(block.input) ? block.input : {};
  const fields = INPUT_FIELDS.map((field) => input[field]).filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  return [typeof block.name === 'string' ? block.name : 'tool', ...fields].join(' ');
}

function add(out: SearchText[], kind: SearchKind, text: string, chars: number): void {
  const bounded = cut(text, chars);
  if (bounded !== '') out.push({ kind, text: redactSecrets(bounded) });
}

/**
 * Redacted before it is cut, over a margin past the cut: a secret the cut fell in is seen whole
 * (and a private key's BEGIN line before its body), so no piece of one is indexed.
 */
const REDACT_MARGIN_CHARS = 8_000;

/** The text's start, cut to `chars` after redaction (texts of issue 28's kinds). */
function redactedHead(text: string, chars: number): string {
  const trimmed = text.trim();
  return trimmed.length <= chars
    ? trimmed
    : redactSecrets(trimmed.slice(0, chars + REDACT_MARGIN_CHARS)).slice(0, chars);
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
/** How far a cut moves to keep a word whole; a longer run of letters is no word anyone types. */
const MAX_WORD_CHARS = 100;
const splitsWord = (text: string, at: number) => WORD_CHAR.test(text.charAt(at - 1)) && WORD_CHAR.test(text.charAt(at));

/** Where a cut at `at` keeps the word it falls in out of the head: a split word would be indexed as two nobody searches for. */
function wordStart(text: string, at: number): number {
  for (let cutAt = at; cutAt > at - MAX_WORD_CHARS && cutAt > 0; cutAt--) if (!splitsWord(text, cutAt)) return cutAt;
  return at;
}

/** Where a tail starting at `at` begins after the word it falls in. */
function wordEnd(text: string, at: number): number {
  for (let cutAt = at; cutAt < at + MAX_WORD_CHARS && cutAt < text.length; cutAt++)
    if (!splitsWord(text, cutAt)) return cutAt;
  return at;
}

/** A prompt or an assistant message: whole up to SEARCH_TEXT_CHARS, past it its head and tail. */
function addLong(out: SearchText[], kind: SearchKind, text: string): void {
  const trimmed = text.trim();
  if (trimmed.length <= SEARCH_TEXT_CHARS) {
    add(out, kind, trimmed, SEARCH_TEXT_CHARS);
    return;
  }
  const headWindow = redactSecrets(trimmed.slice(0, SEARCH_TEXT_CHARS - SEARCH_TEXT_TAIL_CHARS + REDACT_MARGIN_CHARS));
  const head = headWindow.slice(0, wordStart(headWindow, SEARCH_TEXT_CHARS - SEARCH_TEXT_TAIL_CHARS));
  const tailWindow = redactSecrets(trimmed.slice(-(SEARCH_TEXT_TAIL_CHARS + REDACT_MARGIN_CHARS)));
  const tail = tailWindow.slice(wordEnd(tailWindow, Math.max(0, tailWindow.length - SEARCH_TEXT_TAIL_CHARS)));
  add(out, kind, `${head.trimEnd()}${MIDDLE_CUT}${tail.trimStart()}`, SEARCH_TEXT_CHARS + MIDDLE_CUT.length);
}

/** What the line's file-writing calls wrote: each call's tool and path, then its written text's head. */
function writtenTexts(blocks: readonly Json[], out: SearchText[]): void {
  const writes = blocks.filter(
    (block) => block.type === 'tool_use' && typeof block.name === 'string' && Object.hasOwn(WRITE_TOOLS, block.name),
  );
  if (writes.length === 0) return;
  // Parallel calls share the bound, so that each is found by its own start.
  const share = Math.floor(SEARCH_WRITE_CHARS / writes.length);
  const texts = writes.map((block) => {
    const name = block.name as string;
    const tool = WRITE_TOOLS[name] as (typeof WRITE_TOOLS)[string];
    const input = isRecord(block.input) ? block.input : {};
    return `${name} ${redactedHead(stringField(input, tool.path), SEARCH_WRITE_PATH_CHARS)}\n${redactedHead(tool.written(input), share)}`;
  });
  add(out, 'write', texts.join('\n'), SEARCH_WRITE_CHARS + writes.length * (SEARCH_WRITE_PATH_CHARS + 20));
}

/** The model's thinking blocks (redacted_thinking holds none that can be read). */
function thinkingTexts(blocks: readonly Json[], out: SearchText[]): void {
  const thinking = blocks.filter((block) => block.type === 'thinking').map((block) => stringField(block, 'thinking'));
  add(
    out,
    'thinking',
    redactedHead(thinking.filter((text) => text.trim() !== '').join('\n'), SEARCH_THINKING_CHARS),
    SEARCH_THINKING_CHARS,
  );
}

function userTexts(message: Json, entry: Json, out: SearchText[]): void {
  const { content } = message;
  const typed = (raw: string) =>
    entry.isMeta === true || entry.isCompactSummary === true ? '' : readableUserText(raw).typed;
  if (typeof content === 'string') {
    addLong(out, 'prompt', typed(content));
    return;
  }
  if (!Array.isArray(content)) return;
  const prompt: string[] = [];
  const errors: string[] = [];
  const outputs: string[] = [];
  const blocks = content.filter(isRecord);
  // Claude Code describes the line's one tool result in `toolUseResult`: a Read's has the file.
  const fileRead =
    isRecord(entry.toolUseResult) &&
    isRecord(entry.toolUseResult.file) &&
    blocks.filter((block) => block.type === 'tool_result').length === 1;
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') prompt.push(typed(block.text));
    else if (block.type === 'tool_result') {
      const text = resultText(block.content);
      // Each result of parallel calls gets its share of the bound.
      if (block.is_error === true) errors.push(errorLines(text));
      else outputs.push(cut(text, fileRead ? SEARCH_FILE_OUTPUT_CHARS : SEARCH_OUTPUT_CHARS));
    }
  }
  addLong(out, 'prompt', prompt.filter((text) => text !== '').join('\n'));
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
  addLong(out, 'assistant', text.join('\n'));
  add(out, 'tool', tools.join('\n'), SEARCH_INPUT_CHARS);
}

/** The searchable texts of one parsed transcript line, at most one per kind (the index keys them so). */
export function searchTexts(value: unknown): SearchText[] {
  if (!isRecord(value) || !isRecord(value.message)) return [];
  const out: SearchText[] = [];
  if (value.type === 'user') userTexts(value.message, value, out);
  else if (value.type === 'assistant') {
    assistantTexts(value.message, out);
    const blocks = Array.isArray(value.message.content) ? value.message.content.filter(isRecord) : [];
    writtenTexts(blocks, out);
    thinkingTexts(blocks, out);
  }
  return out;
}
