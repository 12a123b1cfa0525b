/**
 * How much of a model's context one tool answer may take, and how answers are cut to it: every
 * cut says what was left out and how to get it (an offset, a cursor, a narrower query).
 */
import { dataQuote, quoteAsData, quoteFrameChars } from '../../../shared/text/quote.js';

/**
 * About 5,000 tokens (chars / 4): a fifth of Claude Code's MAX_MCP_OUTPUT_TOKENS (25,000, DESIGN.md
 * §5), so that several answers fit in a turn and none is ever cut by Claude Code instead of by us.
 */
export const OUTPUT_BUDGET_CHARS = 20_000;

/** Room kept under the budget for the line that says what was cut. */
const FOOTER_RESERVE_CHARS = 400;

/** The first `length` UTF-16 units, one fewer where the cut would split a surrogate pair (an emoji). */
function sliceWhole(text: string, length: number): string {
  const end = Math.max(0, length);
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
}

/** One line of untrusted text, at most `max` characters: no line breaks, an ellipsis where cut. */
export function oneLine(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  return text.length <= max ? text : `${sliceWhole(text, max - 1)}…`;
}

/** Untrusted text kept as it is (line breaks and all), at most `max` characters. */
export function clip(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value : '';
  return text.length <= max ? text : `${sliceWhole(text, max - 1)}…`;
}

/** A cut on a line boundary when there is one in the last fifth, so that a page ends on a whole line. */
function cutPoint(text: string, from: number, max: number): number {
  const end = Math.min(text.length, from + max);
  if (end === text.length) return end;
  const newline = text.lastIndexOf('\n', end - 1);
  return newline > from + max * 0.8 ? newline + 1 : from + sliceWhole(text.slice(from), end - from).length;
}

export interface TextPage {
  /** The page and its footer. */
  text: string;
  /** The page alone (issue 27: quoted as data, with the footer, memd's, outside the quote). */
  body: string;
  /** The line that says where the rest starts; empty when the page is the whole text. */
  footer: string;
  /** Where the next page starts; null when this one reaches the end. */
  nextOffset: number | null;
}

/**
 * One page of a long text (a summary, a handoff, a memory), from `offset`, at most `max` characters,
 * with a last line that says where the rest starts.
 */
export function pageOf(
  text: string,
  offset: number,
  max: number = OUTPUT_BUDGET_CHARS - FOOTER_RESERVE_CHARS,
): TextPage {
  const from = Math.min(Math.max(0, offset), text.length);
  const end = cutPoint(text, from, max);
  const page = text.slice(from, end);
  if (from === 0 && end === text.length) return { text: page, body: page, footer: '', nextOffset: null };
  const more = end < text.length;
  const footer = more
    ? `[characters ${from.toLocaleString('en-US')}–${end.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')}; call again with offset: ${end} for the rest]`
    : `[characters ${from.toLocaleString('en-US')}–${end.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')}: the end]`;
  return {
    text: `${page}${page.endsWith('\n') || page === '' ? '' : '\n'}${footer}`,
    body: page,
    footer,
    nextOffset: more ? end : null,
  };
}

/** Room under the budget for the lines a tool puts above a quoted page (what it is, whose, paths). */
const QUOTED_PAGE_HEAD_CHARS = 1_500;

/**
 * One page of a text derived from transcripts, quoted as data (issue 27, item 6): the quote
 * (shared/text/quote.ts) holds the page; the footer that says where the rest starts is memd's and
 * follows it. `what` names the source in the quote's notice.
 */
export function quotedPageOf(text: string, offset: number, what: string): string {
  const page = pageOf(
    text,
    offset,
    OUTPUT_BUDGET_CHARS - FOOTER_RESERVE_CHARS - QUOTED_PAGE_HEAD_CHARS - quoteFrameChars(what),
  );
  const quoted = quoteAsData(page.body, what);
  return page.footer === '' ? quoted : `${quoted}\n${page.footer}`;
}

/**
 * Joins parts (a header, one per hit or session, a footer) until the budget would be passed; the
 * parts left out are counted with `whenCut`'s advice. With `quoteAs`, the parts are transcript
 * text: they go in one quote (shared/text/quote.ts) that `quoteAs` names, the header, the advice
 * and the footer (memd's) outside it.
 */
export function joinWithinBudget(
  head: string,
  parts: string[],
  tail: string,
  whenCut: (left: number) => string,
  budget = OUTPUT_BUDGET_CHARS,
  quoteAs?: string,
): string {
  const quote = quoteAs === undefined ? null : dataQuote(parts, quoteAs);
  const frame = quote === null ? 0 : quote.notice.length + quote.open.length + quote.close.length + 3;
  const room = budget - head.length - tail.length - FOOTER_RESERVE_CHARS - frame;
  const kept: string[] = [];
  let used = 0;
  for (const part of parts) {
    if (used + part.length + 1 > room) break;
    kept.push(part);
    used += part.length + 1;
  }
  const left = parts.length - kept.length;
  const lines =
    quote === null ? [head, ...kept] : [head, quote.notice, quote.open, ...kept.map(quote.escape), quote.close];
  if (left > 0) lines.push(whenCut(left));
  if (tail !== '') lines.push(tail);
  return lines.join('\n');
}

/** The last guard: whatever a renderer made, nothing over the budget goes to the model. */
export function withinBudget(text: string, budget = OUTPUT_BUDGET_CHARS): string {
  if (text.length <= budget) return text;
  const note =
    '\n[answer cut to fit the tool output budget; ask for less: a lower limit, a narrower query, or an offset]';
  return `${text.slice(0, budget - note.length)}${note}`;
}
