/**
 * The text of a tool_result's content, and the texts Claude Code puts in its place: the size rules
 * measure it (`contentChars`), previews show its head or tail, `<persisted-output>` stands for a
 * result saved to disk (memd's written by micro.ts; Claude Code's recognised by micro.ts and
 * tool-results.ts), and an MCP result over its token limit is cut with Claude Code's notice.
 * Pure: micro-compaction, the reactive previews and the tool-result files all speak of results in
 * these terms.
 */
import type { ContentBlock, TextBlock } from '../../shared/protocol/messages.js';
import { roughTokens } from '../../shared/transcript/tokens.js';
import { isRecord } from '../../shared/values.js';

const PERSISTED_OPEN = '<persisted-output>';
const PERSISTED_CLOSE = '</persisted-output>';
const SAVED_TO = /^Output too large \([^)]*\)\. Full output saved to: (.+)$/m;

/** A newline earlier than this fraction of the preview would waste most of it (Claude Code's rule). */
const MIN_PREVIEW_FRACTION = 0.5;

function textBlocks(content: readonly ContentBlock[]): TextBlock[] {
  return content.filter(
    (block): block is TextBlock => block.type === 'text' && typeof (block as TextBlock).text === 'string',
  );
}

/** The size rules measure text: a string's length, or the text of the text blocks. */
export function contentChars(content: string | readonly ContentBlock[] | undefined): number {
  if (content === undefined) return 0;
  if (typeof content === 'string') return content.length;
  return textBlocks(content).reduce((sum, block) => sum + block.text.length, 0);
}

/** The result's text: a string as it is, or its text blocks joined by newlines. */
export function contentText(content: string | readonly ContentBlock[]): string {
  return typeof content === 'string'
    ? content
    : textBlocks(content)
        .map((block) => block.text)
        .join('\n');
}

/** Claude Code's formatFileSize: 1024-based, one decimal, a trailing `.0` dropped. */
export function formatSize(chars: number): string {
  const units = ['KB', 'MB', 'GB'];
  if (chars < 1024) return `${chars} bytes`;
  let value = chars / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1).replace(/\.0$/, '')}${units[unit]}`;
}

/** The first `maxChars`, cut back to the last newline in them (unless that wastes half). */
export function previewOf(text: string, maxChars: number): { preview: string; hasMore: boolean } {
  if (text.length <= maxChars) return { preview: text, hasMore: false };
  const newline = text.slice(0, maxChars).lastIndexOf('\n');
  const cut = newline > maxChars * MIN_PREVIEW_FRACTION ? newline : maxChars;
  return { preview: text.slice(0, cut), hasMore: true };
}

/** The last `maxChars`, started after the first newline in them (unless that wastes half). */
export function tailOf(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const start = text.length - maxChars;
  const newline = text.indexOf('\n', start);
  const cut = newline >= 0 && newline - start < maxChars * MIN_PREVIEW_FRACTION ? newline + 1 : start;
  // Never start on the second half of a surrogate pair.
  const code = text.charCodeAt(cut);
  return text.slice(code >= 0xdc00 && code <= 0xdfff ? cut + 1 : cut);
}

/** The tool_result text Claude Code writes for a result it saved to `path`. */
export function persistedOutputText(
  path: string,
  fullChars: number,
  preview: string,
  hasMore: boolean,
  previewChars: number,
): string {
  return (
    `${PERSISTED_OPEN}\nOutput too large (${formatSize(fullChars)}). Full output saved to: ${path}\n\n` +
    `Preview (first ${formatSize(previewChars)}):\n${preview}${hasMore ? '\n...\n' : '\n'}${PERSISTED_CLOSE}`
  );
}

/**
 * Where Claude Code saved a result it persisted: the line's `toolUseResult.persistedOutputPath`,
 * else the path named in the `<persisted-output>` text. Null when it did not persist it.
 */
export function claudePersisted(
  raw: Record<string, unknown> | undefined,
  content: string | readonly ContentBlock[] | undefined,
): { path: string | undefined } | null {
  const result = raw !== undefined && isRecord(raw.toolUseResult) ? raw.toolUseResult : {};
  if (typeof result.persistedOutputPath === 'string' && result.persistedOutputPath !== '')
    return { path: result.persistedOutputPath };
  const text =
    content === undefined ? '' : typeof content === 'string' ? content : (textBlocks(content)[0]?.text ?? '');
  if (!text.startsWith(PERSISTED_OPEN)) return null;
  return { path: SAVED_TO.exec(text)?.[1] };
}

export function truncationNotice(limitTokens: number, chars: number): string {
  return `[OUTPUT TRUNCATED - exceeded ${limitTokens} token limit: the full output was ${chars} chars, about ${roughTokens(chars)} tokens]`;
}

/** Never ends inside a surrogate pair. */
function cutText(text: string, maxChars: number): string {
  const code = text.charCodeAt(maxChars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars);
}

/** The first `maxChars` of text with the notice after; media blocks are kept, later text dropped. */
export function truncateContent(
  content: string | readonly ContentBlock[],
  maxChars: number,
  notice: string,
): string | ContentBlock[] {
  if (typeof content === 'string') return `${cutText(content, maxChars)}\n\n${notice}`;
  const out: ContentBlock[] = [];
  let left = maxChars;
  for (const block of content) {
    if (block.type !== 'text') out.push(block);
    else if (left > 0) {
      const text = cutText((block as TextBlock).text, left);
      left -= text.length;
      if (text !== '') out.push({ ...(block as TextBlock), text });
    }
  }
  out.push({ type: 'text', text: notice });
  return out;
}
