/**
 * The search worker's entry point: `search.query`'s SQL and snippets on a read-only connection
 * of its own (WAL lets it read beside ingest's writes), so that a query over a large index, and
 * the transcript lines its snippets read back, never hold the daemon's event loop.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { RpcError } from '../../shared/protocol/errors.js';
import { markedTerms, matches, tokenize } from '../../shared/search/query-syntax.js';
import { createSearchQuery, cursorOffset, DEFAULT_SEARCH_LIMIT, planQuery, type RawHit, type SearchFilter } from './query.js';
import type { SearchRequest, SearchWorkerData, WorkerHit } from './query-client.js';
import { LineReader, markedSnippet } from './snippet.js';

/** A write holding the database this long is waited for rather than failing the query. */
const BUSY_TIMEOUT_MS = 5_000;
/** A query with phrases or NEAR checks at most this many of FTS5's best matches on their text... */
const CHECKED_CANDIDATES = 2_000;
/** ...and for at most this long: past it the hits found so far are the answer, marked partial. */
const CHECK_BUDGET_MS = 40;

// Sent by createSearchWorker in this package, not by an outside party.
const data = workerData as SearchWorkerData;
const port = parentPort;
if (port === null) throw new Error('query-worker.js runs only as a worker thread');
let query: ReturnType<typeof createSearchQuery> | null = null;

function search(filter: SearchFilter, now: number): { hits: WorkerHit[]; nextOffset: number | null; partial: boolean } {
  if (query === null) {
    const db = new Database(data.dbPath, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    query = createSearchQuery(db);
  }
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
}

port.on('message', (request: SearchRequest) => {
  try {
    port.postMessage({ id: request.id, ...search(request.filter, request.now) });
  } catch (error) {
    // A bad query's InvalidParams keeps its code and data across the thread.
    if (error instanceof RpcError) port.postMessage({ id: request.id, rpcError: { code: error.code, kind: error.kind, message: error.message, data: error.data } });
    else port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
