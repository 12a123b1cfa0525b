/**
 * The search texts of one transcript line as read (issue 28). parseLine stands in for a long
 * line's long strings (long-lines.ts: their first 2 KB decoded, then filler), which is all a tool's
 * output needs (its first 1,000 characters are indexed) but cuts a pasted prompt, a long reply, a
 * file written or long thinking, which the index takes to 64,000 or 8,000 characters: such a
 * line's texts are taken from the line parsed whole. Ingest and the snippet reader both use this,
 * so that a snippet and a phrase check see the text that was indexed.
 */
import { type SearchText, searchTexts } from '../../shared/search/text.js';
import { parseTranscriptJson } from '../../shared/transcript/depth.js';
import { LONG_LINE_BYTES, LONG_STRING_BYTES } from './long-lines.js';

/** With lineSearchTexts, what the snippet reader needs of a line (a face of ingest: index.ts loads all the rest). */
export { parseLine } from './long-lines.js';

/** The fewest characters a stood-in string has: LONG_STRING_BYTES raw bytes, all of them `\uXXXX` escapes. */
const MIN_STOOD_IN_CHARS = Math.floor(LONG_STRING_BYTES / 6);
/** The tools whose written text the index takes (shared/search/text.ts), and its fields. */
const WRITTEN_FIELDS = ['content', 'new_string', 'new_source', 'edits'] as const;

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const mayBeStoodIn = (value: unknown) => typeof value === 'string' && value.length >= MIN_STOOD_IN_CHARS;

/** Whether a block holds a string the index takes past a stand-in's decoded start. */
function wholeTextBlock(block: unknown): boolean {
  if (!isRecord(block)) return false;
  if (block.type === 'text') return mayBeStoodIn(block.text);
  if (block.type === 'thinking') return mayBeStoodIn(block.thinking);
  if (block.type === 'tool_use' && isRecord(block.input)) {
    const input = block.input;
    return WRITTEN_FIELDS.some((field) =>
      field === 'edits' ? Array.isArray(input.edits) && input.edits.length > 0 : mayBeStoodIn(input[field]),
    );
  }
  return false;
}

/** Whether the line's searchable texts need its strings whole (a prompt, reply, written file or thinking that may have been stood in for). */
function needsWholeLine(value: unknown): boolean {
  if (!isRecord(value) || !isRecord(value.message)) return false;
  const { content } = value.message;
  if (typeof content === 'string') return value.type === 'user' && mayBeStoodIn(content);
  return Array.isArray(content) && content.some(wholeTextBlock);
}

/**
 * The searchable texts of `line`, parsed by parseLine as `value`, by `texts` (searchTexts, or
 * own-traffic.ts's, which sets memd's own traffic apart).
 */
export function lineSearchTexts(
  line: Buffer,
  value: unknown,
  texts: (value: unknown) => SearchText[] = searchTexts,
): SearchText[] {
  if (line.length < LONG_LINE_BYTES || !needsWholeLine(value)) return texts(value);
  // A long paste or file written: decoded once, at ingest and for a snippet. The line's bytes are
  // bounded by the ingest's maxLineBytes, and JSON.parse of a few MB is milliseconds.
  return texts(parseTranscriptJson(line.toString('utf8')));
}
