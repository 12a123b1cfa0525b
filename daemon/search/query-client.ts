/** The main thread's side of the search worker (query-worker.ts). */
import { RpcError } from '../../shared/protocol/errors.js';
import { createWorkerClient } from '../workers/client.js';
import { workerScript } from '../workers/script.js';
import type { RawHit, SearchFilter } from './query.js';

export interface SearchWorkerData {
  dbPath: string;
}

export interface SearchRequest {
  id: number;
  filter: SearchFilter;
  now: number;
}

export type WorkerHit = RawHit & { snippet: string | null };

export interface WorkerResult {
  hits: WorkerHit[];
  nextOffset: number | null;
  /** A phrase query ran out of its time to check candidates: more hits may exist. */
  partial: boolean;
}

type SearchReply = WorkerResult | { rpcError: { code: number; kind: string; message: string; data: Record<string, unknown> } };

export function createSearchWorker(dbPath: string) {
  const worker = createWorkerClient<SearchReply>({ script: workerScript(import.meta.url, 'query-worker.js'), name: 'search worker', workerData: { dbPath } satisfies SearchWorkerData });
  return {
    async query(filter: SearchFilter, now: number): Promise<WorkerResult> {
      const reply = await worker.request((id) => ({ id, filter, now }) satisfies SearchRequest);
      if ('rpcError' in reply) throw new RpcError(reply.rpcError.code, reply.rpcError.kind, reply.rpcError.message, reply.rpcError.data);
      return reply;
    },
    close: () => worker.close(),
  };
}
