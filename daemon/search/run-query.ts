/**
 * One `search.query` as the search worker runs it: FTS5's candidates (query.ts), each checked on
 * its line's text when the query has phrases or NEAR, and the hits' snippets made from the
 * transcripts (snippet.ts).
 */
import type Database from 'better-sqlite3';
import { markedTerms, matches, tokenize } from '../../shared/search/query-syntax.js';
import type { WorkerResult, WorkerHit } from './query-pool.js';
import { createSearchQuery, cursorOffset, DEFAULT_SEARCH_LIMIT, planQuery, type RawHit, type SearchFilter } from './query.js';
import { LineReader, markedSnippet } from './snippet.js';

/** A query with phrases or NEAR checks at most this many of FTS5's best matches on their text... */
const CHECKED_CANDIDATES = 2_000;
/** ...and for at most this long: past it the hits found so far are the answer, marked partial. */
const CHECK_BUDGET_MS = 30;

export function createSearchRunner(db: Database.Database) {
  const query = createSearchQuery(db);

  return (filter: SearchFilter, now: number): WorkerResult => {
    const plan = planQuery(filter.query);
    const limit = filter.limit ?? DEFAULT_SEARCH_LIMIT;
    const offset = cursorOffset(filter.cursor);
    const terms = markedTerms(plan.tree);
    const lines = new LineReader();
    try {
      const withSnippet = (hit: RawHit, text: string | null): WorkerHit => ({ ...hit, snippet: text === null ? null : markedSnippet(text, terms) });
      if (plan.exact) {
        // One more than asked for says whether there is a next page.
        const rows = query(filter, plan, now, limit + 1, offset);
        return { hits: rows.slice(0, limit).map((hit) => withSnippet(hit, lines.text(hit))), nextOffset: rows.length > limit ? offset + limit : null, partial: false };
      }
      // Phrases and NEAR: FTS5's matches have the words; the text says whether they stand as asked.
      // A line whose transcript is gone cannot be checked and is kept (its words match).
      const deadline = performance.now() + CHECK_BUDGET_MS;
      const found: WorkerHit[] = [];
      let partial = false;
      for (const hit of query(filter, plan, now, CHECKED_CANDIDATES, 0)) {
        if (found.length > offset + limit) break;
        if (performance.now() > deadline) {
          partial = true;
          break;
        }
        const text = lines.text(hit);
        if (text === null || matches(plan.tree, tokenize(text))) found.push(withSnippet(hit, text));
      }
      return { hits: found.slice(offset, offset + limit), nextOffset: found.length > offset + limit ? offset + limit : null, partial };
    } finally {
      lines.close();
    }
  };
}
