/**
 * A search process's entry point (forked by query-pool.ts): `search.query`'s SQL and snippets
 * (run-query.ts) on a read-only connection of its own (WAL lets it read beside ingest's writes).
 * A process and not a worker thread because a query is stopped by killing it: a worker's
 * `terminate()` waits for the SQLite step it is in to end, and better-sqlite3 has neither
 * `sqlite3_interrupt` nor a progress handler. Read-only, the connection leaves nothing half
 * written when it is killed.
 */
import Database from 'better-sqlite3';
import { RpcError } from '../../shared/protocol/errors.js';
import type { SearchReady, SearchReply, SearchRequest } from './query-pool.js';
import { createSearchRunner } from './run-query.js';

/** A write holding the database this long is waited for rather than failing the query. */
const BUSY_TIMEOUT_MS = 5_000;
/**
 * Tests only: a query equal to this runs a single SQLite step that never ends (a recursive count
 * with no bound), the shape of a hostile query on a big index, on a test's small one.
 */
const STALL_ENV = 'MEMD_TEST_SEARCH_STALL';

const dbPath = process.argv[2];
const send = process.send?.bind(process);
if (dbPath === undefined || send === undefined)
  throw new Error('query-process.js runs only as a search process forked by memd');
const stallQuery = process.env[STALL_ENV];
const db = new Database(dbPath, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
const run = createSearchRunner(db);

const reply = (message: SearchReply) => send(message);

process.on('message', (request: SearchRequest) => {
  try {
    if (stallQuery !== undefined && stallQuery !== '' && request.filter.query === stallQuery) {
      db.prepare('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c').get();
    }
    reply({ id: request.id, ...run(request.filter, request.now) });
  } catch (error) {
    // A bad query's InvalidParams keeps its code and data across the process boundary.
    if (error instanceof RpcError)
      reply({
        id: request.id,
        rpcError: { code: error.code, kind: error.kind, message: error.message, data: error.data },
      });
    else reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
// memd gone (its end of the channel closed): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
// Loaded and open: a query's deadline counts from here, not from the process's start.
send({ ready: true } satisfies SearchReady);
