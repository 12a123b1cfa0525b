/**
 * The index's statistics a question is weighed by (issue 33): how many lines the index holds and
 * their average length in tokens (FTS5's own averages record), and how many lines hold each word
 * (fts5vocab over the index: its `doc` for the word, counted from the word's list of rows). A
 * word's count is kept for STATS_TTL_MS: it costs 0.1-10 ms the first time (a word in 20,000 lines),
 * and an idf a few minutes old weighs words alike.
 */
import type Database from 'better-sqlite3';
import { type QuestionTerm, stemOf } from '../../shared/search/question.js';

/** Words counted are counted again after this: the index grows, slowly against its size. */
const STATS_TTL_MS = 10 * 60_000;
/** Words whose counts are kept at most (a question has up to 16 terms of a few forms each). */
const MAX_CACHED_WORDS = 20_000;
/** The forms of a term looked up in the index, at most (each is one lookup). */
export const MAX_TERM_FORMS = 8;
/** What a word's other forms add to its stem (retr + y, ies, ied, ying; fix + es, ed, ing). */
const FORM_ENDINGS = ['', 's', 'es', 'ed', 'ing', 'er', 'ers', 'y', 'ies', 'ied', 'ying', 'e', 'ation', 'ations'];

export interface TermStats {
  /** Lines in the index, and their average length in tokens. */
  totals(): { lines: number; averageLength: number };
  /** Lines holding the word (0 when none). */
  documents(word: string): number;
  /** The term's forms that the index holds (the typed one first), each with its count. */
  forms(term: QuestionTerm): { form: string; documents: number }[];
}

/** SQLite's varint (FTS5's records use it): big-endian 7 bits a byte, the ninth byte whole. */
function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let index = 0; index < 9; index++) {
    const byte = bytes[at + index] ?? 0;
    if (index === 8) return [value * 256 + byte, at + 9];
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + index + 1];
  }
  return [value, at + 9];
}

export function createTermStats(db: Database.Database, clock: () => number = Date.now): TermStats {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, 'search_fts', 'row')");
  const documentsOf = db.prepare('SELECT doc FROM temp.search_vocab WHERE term = ?').pluck();
  // FTS5's averages record (rowid 1 of its data table): the rows, then the tokens of each column.
  const averages = db.prepare('SELECT block FROM search_fts_data WHERE id = 1').pluck();
  const lastEntry = db.prepare('SELECT max(rowid) FROM entries').pluck();
  let words = new Map<string, number>();
  let countedAt = clock();
  let totals: { lines: number; averageLength: number } | null = null;

  const fresh = () => {
    if (clock() - countedAt < STATS_TTL_MS && words.size < MAX_CACHED_WORDS) return;
    words = new Map();
    totals = null;
    countedAt = clock();
  };

  const documents = (word: string): number => {
    fresh();
    let count = words.get(word);
    if (count === undefined) {
      count = (documentsOf.get(word) as number | undefined) ?? 0;
      words.set(word, count);
    }
    return count;
  };

  return {
    totals() {
      fresh();
      if (totals !== null) return totals;
      const block = averages.get() as Buffer | undefined;
      if (block !== undefined && block.length > 0) {
        const [lines, next] = readVarint(block, 0);
        const [tokens] = readVarint(block, next);
        if (lines > 0) totals = { lines, averageLength: tokens / lines };
      }
      // No record yet (an empty index): a line per entry, of a prompt's length.
      totals ??= { lines: Math.max(1, (lastEntry.get() as number | null) ?? 1), averageLength: 30 };
      return totals;
    },
    documents,
    forms(term) {
      const last = term.stem.at(-1) ?? '';
      // run → running, stop → stopped: the doubled consonant the stem lost.
      const doubled = /[^aeiouy]/.test(last) ? [`${term.stem}${last}ing`, `${term.stem}${last}ed`] : [];
      const candidates = new Set([term.token, ...FORM_ENDINGS.map((ending) => `${term.stem}${ending}`), ...doubled]);
      const found: { form: string; documents: number }[] = [];
      for (const form of candidates) {
        if (form !== term.token && stemOf(form) !== term.stem) continue;
        const count = documents(form);
        if (count > 0 || form === term.token) found.push({ form, documents: count });
        if (found.length === MAX_TERM_FORMS) break;
      }
      return found;
    },
  };
}
