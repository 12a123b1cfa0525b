/**
 * A hit's text and snippet: the index is contentless, so the text is made again from the transcript
 * line the hit points at (read by offset and length, parsed as ingest parses it, the same searchable
 * text taken), and the query's terms are marked «like this» in a window around the first match.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { MATCH_CLOSE, MATCH_OPEN, type SearchKind } from '../../shared/protocol/search.js';
import { indexTexts } from '../../shared/search/own-traffic.js';
import { stripAnsi } from '../../shared/text/ansi.js';
import { lineSearchTexts, parseLine } from '../ingest/search-line.js';

/** Characters of context around the first match. */
export const SNIPPET_CHARS = 200;
/** A longer line is not read back for a snippet (its searchable texts are bounded, 64K characters at most). */
const MAX_SNIPPET_LINE_BYTES = 8 * 1024 * 1024;

/** Matches weighed for where the snippet goes: a long text can hold thousands of one word. */
const MAX_SNIPPET_MATCHES = 256;
/** A word as the index's tokenizer sees one (shared/search/query-syntax.ts TOKEN). */
const WORD = /[\p{L}\p{N}\p{Co}]+/gu;
const WORD_CHAR = /[\p{L}\p{N}\p{Co}]/u;
const MARKS = /\p{M}/gu;
const NOT_ASCII = /[^\p{ASCII}]/u;

interface Match {
  index: number;
  end: number;
  term: string;
}

/**
 * A term matcher: a word matches a term equal to it (case and diacritics folded, as the index
 * folds them) or starting with a `prefix*` term's letters. One pass over the text's words and a
 * set lookup each: a regular expression of a question's hundred word forms tried at every
 * character was most of a question's time on long lines.
 */
function termMatcher(terms: readonly string[]): (text: string, from: number, to: number, max: number) => Match[] {
  const whole = new Set<string>();
  const prefixes: string[] = [];
  for (const term of terms) {
    if (term.endsWith('*')) prefixes.push(term.slice(0, -1));
    else whole.add(term);
  }
  return (text, from, to, max) => {
    const found: Match[] = [];
    const words = new RegExp(WORD.source, 'gu');
    words.lastIndex = from;
    for (let word = words.exec(text); word !== null && word.index < to && found.length < max; word = words.exec(text)) {
      const raw = word[0];
      // A word the window's start cuts is not one of the text's words.
      if (word.index === from && from > 0 && WORD_CHAR.test(text[from - 1] ?? '')) continue;
      const folded = (NOT_ASCII.test(raw) ? raw.normalize('NFD').replace(MARKS, '') : raw).toLowerCase();
      const term = whole.has(folded) ? folded : prefixes.find((prefix) => folded.startsWith(prefix));
      if (term !== undefined) found.push({ index: word.index, end: word.index + raw.length, term });
    }
    return found;
  };
}

/**
 * Where the match is that starts the window holding most of the different terms (the first such):
 * a file written is found by a function's name, and its path, which comes first, holds only some
 * of its words (issue 28). -1 when nothing matches.
 */
function densestMatch(matches: readonly Match[], chars: number): number {
  let best = -1;
  let bestTerms = 0;
  const reach = (chars * 2) / 3;
  for (const [at, first] of matches.entries()) {
    const terms = new Set<string>();
    for (let next = at; next < matches.length; next++) {
      const near = matches[next] as Match;
      if (near.index >= first.index + reach) break;
      terms.add(near.term);
    }
    if (terms.size > bestTerms) {
      best = first.index;
      bestTerms = terms.size;
    }
  }
  return best;
}

/** The text with every term marked, cut to a window around the match with most of the terms near it (the start when none). */
export function markedSnippet(text: string, terms: readonly string[], chars = SNIPPET_CHARS): string {
  // Claude Code's command output keeps its terminal escapes (issue 28): a snippet is printed.
  const flat = stripAnsi(text).replace(/\s+/g, ' ').trim();
  if (terms.length === 0) return flat.slice(0, chars);
  const matching = termMatcher(terms);
  const at = densestMatch(matching(flat, 0, flat.length, MAX_SNIPPET_MATCHES), chars);
  const start = at === -1 ? 0 : Math.max(0, at - chars / 3);
  const end = Math.min(flat.length, start + chars);
  let marked = '';
  let from = start;
  // A word cut by the window's end is not a match (the index never held its cut form).
  for (const match of matching(flat, start, end, Number.POSITIVE_INFINITY)) {
    if (match.end > end) break;
    marked += `${flat.slice(from, match.index)}${MATCH_OPEN}${flat.slice(match.index, match.end)}${MATCH_CLOSE}`;
    from = match.end;
  }
  marked += flat.slice(from, end);
  return `${start > 0 ? '…' : ''}${marked}${end < flat.length ? '…' : ''}`;
}

/** Open transcripts, kept for one query: its hits are often several lines of one file. */
export class LineReader {
  private readonly fds = new Map<string, number | null>();

  /** The line at `offset` of the file, or null when it cannot be read as it was indexed. */
  read(path: string, offset: number, length: number): Buffer | null {
    if (length > MAX_SNIPPET_LINE_BYTES) return null;
    const fd = this.open(path);
    if (fd === null) return null;
    try {
      const buffer = Buffer.alloc(length);
      return readSync(fd, buffer, 0, length, offset) === length ? buffer : null;
    } catch {
      return null;
    }
  }

  /** The searchable text of the hit's kind in its line; null when the transcript is gone or no longer holds the line. */
  text(hit: { path: string; offset: number; length: number; kind: SearchKind }): string | null {
    const line = this.read(hit.path, hit.offset, hit.length);
    if (line === null) return null;
    let value: unknown;
    try {
      value = parseLine(line);
    } catch {
      return null;
    }
    // A result's call is on another line: a `memd` hit's results are memd's, another kind's are not
    // (a line holding both memd's result and another tool's is rare: parallel calls).
    const ownResults = hit.kind === 'memd';
    return (
      lineSearchTexts(line, value, (whole) => indexTexts(whole, () => ownResults)).find(
        (candidate) => candidate.kind === hit.kind,
      )?.text ?? null
    );
  }

  close(): void {
    for (const fd of this.fds.values()) if (fd !== null) closeSync(fd);
    this.fds.clear();
  }

  private open(path: string): number | null {
    const known = this.fds.get(path);
    if (known !== undefined) return known;
    let fd: number | null = null;
    try {
      // Non-blocking: a FIFO put where a transcript was must not hang a query.
      fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      fd = null;
    }
    if (fd !== null && !isFile(fd)) {
      closeSync(fd);
      fd = null;
    }
    this.fds.set(path, fd);
    return fd;
  }
}

function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}
