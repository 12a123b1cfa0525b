/**
 * The end of a transcript as text a person or a model reads: each JSONL line that reaches the
 * model becomes `ROLE: text`, tool calls and results included, JSON escapes undone. Used for the
 * handoff model's input and for the partial handoff's tail, by the daemon and by memctl. Pure.
 */

import { parseTranscriptJson } from '../transcript/depth.js';
import { isRecord } from '../values.js';

/** DESIGN.md §5: a handoff reads the last 50 KB of the transcript. */
export const HANDOFF_TAIL_BYTES = 50 * 1024;

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((inner) =>
      isRecord(inner) && typeof inner.text === 'string' ? inner.text : isRecord(inner) ? `[${String(inner.type)}]` : '',
    )
    .join('\n');
}

function blockLines(role: 'USER' | 'ASSISTANT', content: unknown): string[] {
  if (typeof content === 'string') return content.trim() === '' ? [] : [`${role}: ${content.trim()}`];
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).flatMap((block) => {
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '')
      return [`${role}: ${block.text.trim()}`];
    if (block.type === 'tool_use') return [`TOOL CALL ${String(block.name)}: ${JSON.stringify(block.input ?? {})}`];
    if (block.type === 'tool_result')
      return [`TOOL RESULT${block.is_error === true ? ' (error)' : ''}: ${resultText(block.content).trim()}`];
    return [];
  });
}

/** One transcript line as readable lines; a line that is not JSON is kept as it is. */
function lineText(line: string): string[] {
  let value: unknown;
  try {
    value = parseTranscriptJson(line);
  } catch {
    return [line];
  }
  if (!isRecord(value)) return [];
  const content = isRecord(value.message) ? value.message.content : undefined;
  if (value.type === 'system' && value.subtype === 'compact_boundary') return ['--- compaction ---'];
  if (value.type === 'user' && value.isCompactSummary === true)
    return [`COMPACTION SUMMARY: ${resultText(content).trim()}`];
  if (value.type === 'user') return blockLines('USER', content);
  if (value.type === 'assistant') return blockLines('ASSISTANT', content);
  return [];
}

/**
 * The readable text of a transcript's last bytes. `startsMidLine`: the bytes begin inside a line
 * (they were cut from a longer file), whose remainder is dropped.
 */
export function transcriptTailText(raw: string, startsMidLine: boolean): string {
  const lines = raw.split('\n');
  if (startsMidLine) lines.shift();
  return lines
    .filter((line) => line.trim() !== '')
    .flatMap(lineText)
    .join('\n\n');
}
