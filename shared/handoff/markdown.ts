/**
 * Markdown pieces for the handoff file, made safe for text that came from a transcript or a model:
 * nothing such text holds may open a section, break a table row or close a fence early. Pure.
 */

/** Where `clip` leaves text out. */
export const ELLIPSIS = '…';

/** The text cut to `max` characters, the cut marked (a surrogate pair is never split). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1)).replace(/[\uD800-\uDBFF]$/, '');
  return `${cut}${ELLIPSIS}`;
}

/** The text on one line: a list item or table cell from it cannot start a heading or a new row. */
export function flat(text: string, max = Infinity): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Inline code that shows `text` as it is, whatever backticks it holds (CommonMark code spans). */
export function codeSpan(text: string): string {
  const body = flat(text);
  const ticks = '`'.repeat(longestRun(body, '`') + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${body}${pad}${ticks}`;
}

/** A table cell: one line, and a `|` that would end the cell escaped (GFM, also inside code spans). */
export function tableCell(text: string): string {
  return flat(text).replaceAll('|', '\\|');
}

/**
 * A fenced block holding `text` verbatim: the fence is one backtick longer than the longest run of
 * backticks inside, so no line of the text can close it (CommonMark).
 */
export function fenced(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}${info}\n${text.endsWith('\n') || text === '' ? text : `${text}\n`}${fence}`;
}

/** Bullet lines, or the one line saying there is nothing. */
export function bullets(items: readonly string[], none: string): string {
  return items.length === 0 ? `- ${none}` : items.map((item) => `- ${item}`).join('\n');
}
