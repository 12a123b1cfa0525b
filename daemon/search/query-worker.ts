/**
 * The search worker's entry point: `search.query`'s SQL and snippets (run-query.ts) on a read-only
 * connection of its own (WAL lets it read beside ingest's writes), so that a query over a large
 * index, and the transcript lines its snippets read back, never hold the daemon's event loop.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { RpcError } from '../../shared/protocol/errors.js';
import type { SearchRequest, SearchWorkerData } from './query-client.js';
import { createSearchRunner } from './run-query.js';

/** A write holding the database this long is waited for rather than failing the query. */
const BUSY_TIMEOUT_MS = 5_000;

// Sent by createSearchWorker in this package, not by an outside party.
const data = workerData as SearchWorkerData;
const port = parentPort;
if (port === null) throw new Error('query-worker.js runs only as a worker thread');
let run: ReturnType<typeof createSearchRunner> | null = null;

port.on('message', (request: SearchRequest) => {
  try {
    if (run === null) {
      const db = new Database(data.dbPath, { readonly: true, fileMustExist: true });
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      run = createSearchRunner(db);
    }
    port.postMessage({ id: request.id, ...run(request.filter, request.now) });
  } catch (error) {
    // A bad query's InvalidParams keeps its code and data across the thread.
    if (error instanceof RpcError) port.postMessage({ id: request.id, rpcError: { code: error.code, kind: error.kind, message: error.message, data: error.data } });
    else port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
