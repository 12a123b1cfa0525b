/**
 * A hit's snippet: the index is contentless, so the text is made again from the transcript line
 * the hit points at (read by offset and length, parsed as ingest parses it, the same searchable
 * text taken), and the query's terms are marked «like this» in a window around the first match.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { MATCH_CLOSE, MATCH_OPEN, type SearchKind } from '../../shared/protocol/search.js';
import { searchTexts } from '../../shared/search/text.js';
import { parseLine } from '../ingest/long-lines.js';

/** Characters of context around the first match. */
export const SNIPPET_CHARS = 200;
/** A longer line is not read back for a snippet (its searchable text is its first kilobytes anyway). */
const MAX_SNIPPET_LINE_BYTES = 8 * 1024 * 1024;
const OPERATORS = new Set(['AND', 'OR', 'NOT', 'NEAR']);

/** The words of an FTS5 query, lower-cased; a `prefix*` keeps its star. */
export function queryTerms(query: string): string[] {
  const terms = [...query.matchAll(/[\p{L}\p{N}_]+\*?/gu)].map((match) => match[0]).filter((term) => !OPERATORS.has(term.replace(/\*$/, '')));
  return [...new Set(terms.map((term) => term.toLowerCase()))];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text with every term marked, cut to a window around the first match (the start when none). */
export function markedSnippet(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (terms.length === 0) return flat.slice(0, SNIPPET_CHARS);
  const alternatives = terms.map((term) => (term.endsWith('*') ? `${escapeRegExp(term.slice(0, -1))}[\\p{L}\\p{N}_]*` : `${escapeRegExp(term)}(?![\\p{L}\\p{N}_])`));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})`, 'giu');
  const first = pattern.exec(flat);
  const start = first === null ? 0 : Math.max(0, first.index - SNIPPET_CHARS / 3);
  const window = flat.slice(start, start + SNIPPET_CHARS);
  const marked = window.replace(pattern, (match) => `${MATCH_OPEN}${match}${MATCH_CLOSE}`);
  return `${start > 0 ? '…' : ''}${marked}${start + SNIPPET_CHARS < flat.length ? '…' : ''}`;
}

/** The line at `offset` of the file, or null when it cannot be read as it was indexed. */
function readLine(path: string, offset: number, length: number): Buffer | null {
  if (length > MAX_SNIPPET_LINE_BYTES) return null;
  let fd: number;
  try {
    // Non-blocking: a FIFO put where a transcript was must not hang a query.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(length);
    return readSync(fd, buffer, 0, length, offset) === length ? buffer : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The snippet of a hit; null when its transcript is gone or no longer holds the line. */
export function snippetOf(hit: { path: string; offset: number; length: number; kind: SearchKind }, terms: readonly string[]): string | null {
  const line = readLine(hit.path, hit.offset, hit.length);
  if (line === null) return null;
  let value: unknown;
  try {
    value = parseLine(line);
  } catch {
    return null;
  }
  const text = searchTexts(value).find((candidate) => candidate.kind === hit.kind)?.text;
  return text === undefined ? null : markedSnippet(text, terms);
}
