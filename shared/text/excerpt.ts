/**
 * The part of a long text around what was searched for (issue 28, item 6): a hit's message can be
 * kilobytes (a merged user message whose prompt comes after 3.3K characters of tool output), and a
 * renderer that shows its head shows everything but the match. Pure.
 */
import { MATCH_CLOSE, MATCH_OPEN } from '../protocol/search.js';

/** Words of FTS5's syntax, not words of the text. */
const OPERATORS = new Set(['AND', 'OR', 'NOT', 'NEAR']);
/** Terms looked for at most: a query of more is matched by its first ones. */
const MAX_TERMS = 20;
/** Share of the window before the match: the lead-in matters less than what follows. */
const LEAD_SHARE = 1 / 3;

/** The words to look for: the «marked» terms of a snippet, or the words of a query (a trailing * kept, operators left out). */
export function queryTerms(query: string): string[] {
  const marked = [...query.matchAll(new RegExp(`${MATCH_OPEN}([^${MATCH_CLOSE}]+)${MATCH_CLOSE}`, 'gu'))].map(
    (match) => match[1] as string,
  );
  const words =
    marked.length > 0
      ? marked
      : [...query.matchAll(/[\p{L}\p{N}_]+\*?/gu)].map((match) => match[0]).filter((word) => !OPERATORS.has(word));
  return [...new Set(words.map((word) => word.toLowerCase()))].slice(0, MAX_TERMS);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where the first of the terms starts in the text (at a word's start; a term with * a prefix), or -1. */
export function firstMatch(text: string, terms: readonly string[]): number {
  if (terms.length === 0) return -1;
  const alternatives = terms.map((term) => (term.endsWith('*') ? escapeRegExp(term.slice(0, -1)) : escapeRegExp(term)));
  const found = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})`, 'iu').exec(text);
  return found === null ? -1 : found.index;
}

/**
 * At most `max` characters of the text (plus the … marks): around the first match when there is
 * one past the head, else the head and the tail (a merged message's prompt is at its end).
 */
export function excerptAround(text: string, terms: readonly string[], max: number): string {
  if (text.length <= max) return text;
  const at = firstMatch(text, terms);
  if (at === -1) {
    const head = Math.floor(max * LEAD_SHARE);
    return `${text.slice(0, head)} … ${text.slice(text.length - (max - head))}`;
  }
  const start = Math.min(Math.max(0, at - Math.floor(max * LEAD_SHARE)), text.length - max);
  const end = start + max;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
