/**
 * What reactive compaction makes of a tool result too large to keep: its start and its end, with
 * a line between them that says how much was left out and how to get it back. Pure. Nothing is
 * written: the transcript holds the whole result, and `toolResults.get` reads it from there (or
 * from the file Claude Code or micro-compaction persisted it to). Read results are previewed too:
 * unlike persisting (micro.ts), a preview does not send the model to a file to see what Read said.
 * Images and documents in a result are left out with the text; the line counts them.
 */
import type { ContentBlock, ToolResultBlock } from '../../shared/protocol/messages.js';
import { DEFAULT_PREVIEW_CHARS } from './micro.js';
import { contentChars, contentText, previewOf, tailOf } from './tool-result-text.js';

export const PREVIEW_HEAD_CHARS = DEFAULT_PREVIEW_CHARS; // as much of the start as a persisted result shows
export const PREVIEW_TAIL_CHARS = 1_000; // the end of an output is where runs put their errors and totals

/** What the line between head and tail says: the client can expand the result with it. */
export function previewPointer(
  toolUseId: string,
  sessionId: string | null,
  omittedChars: number,
  totalChars: number,
  mediaBlocks: number,
): string {
  const params = JSON.stringify(sessionId === null ? { toolUseId } : { sessionId, toolUseId });
  const media = mediaBlocks === 0 ? '' : ` and ${mediaBlocks} image or document block${mediaBlocks === 1 ? '' : 's'}`;
  return `[memd: ${omittedChars.toLocaleString('en-US')} of ${totalChars.toLocaleString('en-US')} chars${media} of this tool result were left out here to fit the context limit; toolResults.get ${params} returns it whole]`;
}

/** Without a first half of a surrogate pair at the end, which a cut can leave. */
function wholeChars(text: string): string {
  const code = text.charCodeAt(text.length - 1);
  return code >= 0xd800 && code <= 0xdbff ? text.slice(0, -1) : text;
}

function mediaCount(content: string | readonly ContentBlock[]): number {
  return typeof content === 'string' ? 0 : content.filter((block) => block.type !== 'text').length;
}

/**
 * The result with its content replaced by head, pointer and tail (is_error and the id kept);
 * null when that would not make it shorter.
 */
export function previewToolResult(block: ToolResultBlock, sessionId: string | null): ToolResultBlock | null {
  const content = block.content ?? '';
  const text = contentText(content);
  const head = wholeChars(previewOf(text, PREVIEW_HEAD_CHARS).preview);
  const tail = tailOf(text.slice(head.length), PREVIEW_TAIL_CHARS);
  const omitted = text.length - head.length - tail.length;
  const media = mediaCount(content);
  if (omitted === 0 && media === 0) return null;
  const pointer = previewPointer(block.tool_use_id, sessionId, omitted, contentChars(content), media);
  const preview: ToolResultBlock = {
    ...block,
    content: [head, pointer, tail].filter((part) => part !== '').join('\n\n'),
  };
  return JSON.stringify(preview).length < JSON.stringify(block).length ? preview : null;
}
