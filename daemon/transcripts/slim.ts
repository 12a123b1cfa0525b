/**
 * Transcript entries made small enough to hold for a whole session (issue 27's handoff reader,
 * shared with the reader of the file facts before a compaction, earlier.ts): a result stubbed to
 * its tool_use_id and status, thinking and images dropped, long texts cut in the middle, and of
 * Claude Code's structured result only what the facts use. Pure.
 */
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { isRecord } from '../../shared/values.js';
import type { LoadedEntry } from './entries.js';

/** One entry read whole at most: past this it is a stub (results) or left out (prompts). */
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
/** Text kept of one block: more than any fact needs (a rule is a sentence, a key line one line). */
export const KEEP_TEXT_CHARS = 50_000;
/** Strings kept of a tool's input: paths and commands whole, file contents (Write, Edit) cut. */
export const KEEP_INPUT_CHARS = 4_000;

/** The entry without its bulk: tool calls by name, results by id and status. */
export function stub(entry: IndexedEntry): LoadedEntry {
  const content =
    entry.type === 'assistant'
      ? entry.toolUses.map((use) => ({ type: 'tool_use', id: use.id, name: use.name, input: {} }))
      : entry.toolResults.map((result) => ({
          type: 'tool_result',
          tool_use_id: result.id,
          content: result.isError ? `(a result of ${entry.length} bytes, not read)` : '',
          is_error: result.isError,
        }));
  return { entry, raw: { type: entry.type, uuid: entry.uuid, message: { role: entry.type, content } } };
}

/** Head and tail of a long text: a failure's first error line and a traceback's last line both stay. */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n…\n${text.slice(text.length - half)}`;
}

function slimInput(value: unknown): unknown {
  if (typeof value === 'string') return clipMiddle(value, KEEP_INPUT_CHARS);
  if (Array.isArray(value)) return value.map(slimInput);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, slimInput(inner)]));
  return value;
}

function slimBlock(block: unknown): unknown[] {
  if (typeof block === 'string') return [clipMiddle(block, KEEP_TEXT_CHARS)];
  if (!isRecord(block)) return [];
  if (block.type === 'text' && typeof block.text === 'string')
    return [{ ...block, text: clipMiddle(block.text, KEEP_TEXT_CHARS) }];
  if (block.type === 'tool_use') return [{ ...block, input: slimInput(block.input) }];
  if (block.type !== 'tool_result') return []; // thinking, images, documents: no fact in them
  const content =
    typeof block.content === 'string'
      ? clipMiddle(block.content, KEEP_TEXT_CHARS)
      : Array.isArray(block.content)
        ? block.content.flatMap(slimBlock)
        : block.content;
  return [{ ...block, content }];
}

/** What readTranscript uses of Claude Code's structured result: Write's kind, a task's id, an exit code. */
export function slimMeta(meta: unknown): unknown {
  if (!isRecord(meta)) return undefined;
  return {
    ...(typeof meta.type === 'string' ? { type: meta.type } : {}),
    ...(typeof meta.exitCode === 'number' ? { exitCode: meta.exitCode } : {}),
    ...(isRecord(meta.task) ? { task: { id: meta.task.id } } : {}),
  };
}

/** A read entry as little as the facts need: held for the whole session, it must stay small. */
export function slim({ entry, raw }: LoadedEntry): LoadedEntry {
  const message = isRecord(raw.message) ? raw.message : {};
  const content =
    typeof message.content === 'string'
      ? clipMiddle(message.content, KEEP_TEXT_CHARS)
      : Array.isArray(message.content)
        ? message.content.flatMap(slimBlock)
        : [];
  return {
    entry,
    raw: {
      type: raw.type,
      uuid: raw.uuid,
      message: { role: message.role, content },
      toolUseResult: slimMeta(raw.toolUseResult),
    },
  };
}
