/**
 * One `search.query` as the search worker runs it: the query's walk over the index (query.ts,
 * walk.ts), batch after batch, each batch's candidates checked on their line's text when the query
 * has phrases or NEAR, until the page is full, the matches end, or the time budget is spent; the
 * hits' snippets made from the transcripts (snippet.ts). Whatever ends a page, the cursor goes on
 * from there (issue 28, item 6): no cap leaves matches out without saying so.
 */
import type Database from 'better-sqlite3';
import { markedTerms, matches } from '../../shared/search/query-match.js';
import { tokenize } from '../../shared/search/query-syntax.js';
import {
  type Batch,
  createSearchQuery,
  DEFAULT_SEARCH_LIMIT,
  planQuery,
  type RawHit,
  type SearchFilter,
} from './query.js';
import type { WorkerHit, WorkerResult } from './query-pool.js';
import { askedQuestion, createQuestionSearch, questionCursor, questionOffset } from './question.js';
import { LineReader, markedSnippet } from './snippet.js';
import { decodeCursor, encodeCursor, type Span } from './walk.js';

/**
 * A page stops looking after this long (reading lines back to check a phrase, walking batches a
 * filter leaves empty) and answers what it found, `partial` with the cursor that goes on: a client
 * wanting more follows it, and between its pages other clients' queries get their turn. Counted
 * from the page's first ranked batch, and kept well under the pool's 100 ms "heavy" mark, past
 * which a process is niced and then replaced (query-pool.ts).
 */
export const PAGE_BUDGET_MS = 30;

export function createSearchRunner(db: Database.Database) {
  const query = createSearchQuery(db);
  const ask = createQuestionSearch(db);
  // Changes whenever another connection commits: a batch ranked before may have changed since.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  /**
   * The rest of the batch this process ranked last, for the walk's next page (one client's pages
   * go to the first free process, usually this one): reading and ranking 2,000 candidates again
   * takes 20-50 ms, most of a page. Valid only while nothing was written: ranked from the walk's
   * pinned time, the same batch of the same database ranks alike.
   */
  let last: { key: string; skip: number; rows: RawHit[] } | null = null;

  return (filter: SearchFilter, now: number): WorkerResult => {
    const question = askedQuestion(filter);
    if (question !== null) {
      const skip = questionOffset(filter.cursor);
      const limit = filter.limit ?? DEFAULT_SEARCH_LIMIT;
      const reader = new LineReader();
      try {
        const page = ask(filter, question, now, reader, skip, limit);
        return { hits: page.hits, nextCursor: page.more ? questionCursor(skip + limit) : null, partial: false };
      } finally {
        reader.close();
      }
    }
    const plan = planQuery(filter.query);
    const limit = filter.limit ?? DEFAULT_SEARCH_LIMIT;
    const position = decodeCursor(filter.cursor);
    const pinned = position.now ?? now;
    const walk = query(filter, plan, pinned);
    if (walk === null) return { hits: [], nextCursor: null, partial: false };
    const { cursor: _cursor, limit: _limit, ...scope } = filter;
    const walkKey = `${JSON.stringify(scope)}|${pinned}|${dataVersion.get() as number}`;
    /**
     * A batch's ranked lines from `from` on, read as they are used: first as many as a page of
     * hits needs (most pages stop there), then, when a phrase's checks go further, all the rest.
     */
    const ranked = (spans: readonly Span[], load: () => Batch, from: number) => {
      const key = `${walkKey}|${JSON.stringify(spans)}`;
      let batch: Batch | null = null;
      const loaded = () => {
        batch ??= load();
        return batch;
      };
      let skip = from;
      let rows: RawHit[];
      let whole: boolean;
      if (last !== null && last.key === key && last.skip <= from) {
        ({ skip, rows } = last);
        whole = true;
      } else {
        rows = walk.rank(loaded(), from, limit + 1);
        whole = rows.length < limit + 1;
      }
      return {
        /** The line at `index` of the batch's ranking; undefined past its end. */
        at(index: number): RawHit | undefined {
          if (index - skip >= rows.length && !whole) {
            rows = walk.rank(loaded(), index, -1);
            skip = index;
            whole = true;
            last = { key, skip, rows };
          }
          return rows[index - skip];
        },
      };
    };
    const at = (spans: readonly Span[], offset: number, rest: Span | null) =>
      encodeCursor({ batch: spans, offset, rest, now: pinned });
    const terms = markedTerms(plan.tree);
    const lines = new LineReader();
    const found: WorkerHit[] = [];
    try {
      let spans: readonly Span[];
      let rest: Span | null;
      let offset = position.offset;
      let list: ReturnType<typeof ranked>;
      if (position.batch === null) {
        const first = walk.first();
        ({ spans, rest } = first);
        list = ranked(spans, () => first, offset);
      } else {
        ({ batch: spans, rest } = position);
        const { batch: named, rest: after } = position;
        list = ranked(named, () => walk.reread(named, after), offset);
      }
      const deadline = performance.now() + PAGE_BUDGET_MS;
      // Progress on every page, however short the budget: at least one candidate or batch.
      let looked = 0;
      for (;;) {
        for (let hit = list.at(offset); hit !== undefined; hit = list.at(++offset)) {
          // An exact query's candidates are all hits: only looking that may find nothing (a phrase's
          // check, batches a filter empties) is bounded; a page of hits reads at most `limit` lines.
          const outOfTime = !plan.exact && looked > 0 && performance.now() > deadline;
          if (found.length === limit || outOfTime) {
            // The cursor of a full page may lead to an empty one (a phrase's candidates, a batch
            // the filter empties), never past a hit.
            return { hits: found, nextCursor: at(spans, offset, rest), partial: outOfTime && found.length < limit };
          }
          looked++;
          // Phrases and NEAR: FTS5's matches have the words; the text says whether they stand as
          // asked. A line whose transcript is gone cannot be checked and is kept (its words match).
          const text = lines.text(hit);
          if (plan.exact || text === null || matches(plan.tree, tokenize(text)))
            found.push({ ...hit, snippet: text === null ? null : markedSnippet(text, terms) });
        }
        if (rest === null) return { hits: found, nextCursor: null, partial: false };
        if (looked > 0 && performance.now() > deadline)
          return { hits: found, nextCursor: at(spans, offset, rest), partial: found.length < limit };
        const next = walk.after(rest);
        ({ spans, rest } = next);
        offset = 0;
        list = ranked(spans, () => next, 0);
        looked++;
      }
    } finally {
      lines.close();
    }
  };
}
