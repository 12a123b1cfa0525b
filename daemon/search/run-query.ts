/**
 * One `search.query` as the search worker runs it: the query's walk over the index (query.ts,
 * walk.ts), batch after batch, each batch's candidates checked on their line's text when the query
 * has phrases or NEAR, until the page is full, the matches end, or the time budget is spent; the
 * hits' snippets made from the transcripts (snippet.ts). Whatever ends a page, the cursor goes on
 * from there (issue 28, item 6): no cap leaves matches out without saying so.
 */
import type Database from 'better-sqlite3';
import { markedTerms, matches, tokenize } from '../../shared/search/query-syntax.js';
import type { WorkerResult, WorkerHit } from './query-pool.js';
import { createSearchQuery, DEFAULT_SEARCH_LIMIT, planQuery, type Batch, type RawHit, type SearchFilter } from './query.js';
import { LineReader, markedSnippet } from './snippet.js';
import { decodeCursor, encodeCursor } from './walk.js';

/**
 * A page stops looking after this long (reading lines back to check a phrase, walking batches a
 * filter leaves empty) and answers what it found, `partial` with the cursor that goes on: a client
 * wanting more follows it, and between its pages other clients' queries get their turn.
 */
export const PAGE_BUDGET_MS = 30;

export function createSearchRunner(db: Database.Database) {
  const query = createSearchQuery(db);

  return (filter: SearchFilter, now: number): WorkerResult => {
    const plan = planQuery(filter.query);
    const limit = filter.limit ?? DEFAULT_SEARCH_LIMIT;
    const position = decodeCursor(filter.cursor);
    const pinned = position.now ?? now;
    const walk = query(filter, plan, pinned);
    if (walk === null) return { hits: [], nextCursor: null, partial: false };
    const terms = markedTerms(plan.tree);
    const lines = new LineReader();
    const found: WorkerHit[] = [];
    try {
      let batch: Batch = position.batch === null ? walk.first() : walk.reread(position.batch, position.rest);
      let offset = position.offset;
      const at = (spans: Batch['spans'], from: number, rest: Batch['rest']) => encodeCursor({ batch: spans, offset: from, rest, now: pinned });
      // Counted once the page's first batch is ranked: a page that goes on from a cursor ranks its
      // batch again first, and that is no progress.
      let deadline = Number.POSITIVE_INFINITY;
      // Progress on every page, however short the budget: at least one candidate looked at.
      let looked = 0;
      for (;;) {
        const ranked = batch.candidates.length === 0 ? [] : walk.rank(batch);
        if (deadline === Number.POSITIVE_INFINITY) deadline = performance.now() + PAGE_BUDGET_MS;
        for (; offset < ranked.length; offset++) {
          const hit = ranked[offset] as RawHit;
          // An exact query's candidates are all hits: only looking that may find nothing (a phrase's
          // check, batches a filter empties) is bounded; a page of hits reads at most `limit` lines.
          const outOfTime = !plan.exact && looked > 0 && performance.now() > deadline;
          if (found.length === limit || outOfTime) {
            // A full page looks one candidate further only when it is a hit for sure (exact):
            // otherwise the cursor may lead to an empty page, never to a gap.
            const more = offset < ranked.length || batch.rest !== null;
            return { hits: found, nextCursor: more ? at(batch.spans, offset, batch.rest) : null, partial: outOfTime && found.length < limit };
          }
          looked++;
          // Phrases and NEAR: FTS5's matches have the words; the text says whether they stand as
          // asked. A line whose transcript is gone cannot be checked and is kept (its words match).
          const text = lines.text(hit);
          if (plan.exact || text === null || matches(plan.tree, tokenize(text))) found.push({ ...hit, snippet: text === null ? null : markedSnippet(text, terms) });
        }
        if (batch.rest === null) return { hits: found, nextCursor: null, partial: false };
        if (looked > 0 && performance.now() > deadline) {
          return { hits: found, nextCursor: at(batch.spans, offset, batch.rest), partial: found.length < limit };
        }
        batch = walk.after(batch.rest);
        offset = 0;
        looked++;
      }
    } finally {
      lines.close();
    }
  };
}
