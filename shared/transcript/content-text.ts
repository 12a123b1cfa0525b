/** The text of a message's or a tool result's content. Pure. */
import { isRecord } from '../values.js';

/** The text blocks of `content` joined by `separator`; a string content as it is. */
export function contentText(content: unknown, separator: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join(separator);
}

/** A message's text blocks, joined as paragraphs. */
export function textOf(content: unknown): string {
  return contentText(content, '\n\n');
}
