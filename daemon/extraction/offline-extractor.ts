/** The main thread's side of the offline extraction worker (offline-worker.ts). */
import type { LastExtraction } from '../../shared/transcript/accounting.js';
import { createWorkerClient, type WorkerReply } from '../workers/client.js';
import { workerScript } from '../workers/script.js';

export interface OfflineRequest {
  id: number;
  /** The daemon's database, opened read-only by the worker. */
  dbPath: string;
  sessionId: string;
  previous: string | null;
  template: string;
  lastExtraction: LastExtraction | null;
}

export interface OfflineExtraction {
  text: string;
  lastUuid: string | null;
  lastOffset: number | null;
  /** The session's context tokens now (the next extraction's baseline). */
  contextTokens: number;
}

export type OfflineReply = WorkerReply<OfflineExtraction>;

export interface OfflineExtractor {
  run(request: Omit<OfflineRequest, 'id'>, signal?: AbortSignal): Promise<OfflineExtraction>;
  close(): Promise<void>;
}

/** Starts the worker on first use; a worker that dies fails what it had and is started again next time. */
export function createOfflineExtractor(): OfflineExtractor {
  const worker = createWorkerClient<OfflineExtraction>({
    script: workerScript(import.meta.url, 'offline-worker.js'),
    name: 'extraction worker',
    cancelled: () => new Error('extraction cancelled'),
  });
  return {
    async run(request, signal) {
      const reply = await worker.request((id) => ({ ...request, id }) satisfies OfflineRequest, signal);
      return {
        text: reply.text,
        lastUuid: reply.lastUuid,
        lastOffset: reply.lastOffset,
        contextTokens: reply.contextTokens,
      };
    },
    close: () => worker.close(),
  };
}
