/** The main thread's side of the offline extraction worker (offline-worker.ts). */
import { Worker } from 'node:worker_threads';
import type { LastExtraction } from '../../shared/transcript/accounting.js';
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

export type OfflineReply = ({ id: number } & OfflineExtraction) | { id: number; error: string };

export interface OfflineExtractor {
  run(request: Omit<OfflineRequest, 'id'>, signal?: AbortSignal): Promise<OfflineExtraction>;
  close(): Promise<void>;
}

/** Starts the worker on first use; a worker that dies fails what it had and is started again next time. */
export function createOfflineExtractor(): OfflineExtractor {
  const waiting = new Map<number, { resolve(value: OfflineExtraction): void; reject(error: Error): void }>();
  let worker: Worker | null = null;
  let nextId = 1;

  const failAll = (error: Error) => {
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
  };

  const spawn = (): Worker => {
    const started = new Worker(workerScript(import.meta.url, 'offline-worker.js'));
    started.unref();
    started.on('message', (reply: OfflineReply) => {
      const waiter = waiting.get(reply.id);
      if (waiter === undefined) return;
      waiting.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve({ text: reply.text, lastUuid: reply.lastUuid, lastOffset: reply.lastOffset, contextTokens: reply.contextTokens });
    });
    const lost = (error: Error) => {
      if (worker !== started) return;
      worker = null;
      failAll(error);
    };
    started.on('error', lost);
    started.on('exit', (code) => lost(new Error(`the extraction worker exited with code ${code}`)));
    return started;
  };

  return {
    run(request, signal) {
      return new Promise<OfflineExtraction>((resolve, reject) => {
        if (signal?.aborted) {
          reject(new Error('extraction cancelled'));
          return;
        }
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        // A cancelled request is forgotten; the worker's answer, when it comes, is dropped.
        signal?.addEventListener('abort', () => {
          if (waiting.delete(id)) reject(new Error('extraction cancelled'));
        });
        worker ??= spawn();
        worker.postMessage({ ...request, id } satisfies OfflineRequest);
      });
    },
    async close() {
      const current = worker;
      worker = null;
      failAll(new Error('the extraction worker was closed'));
      if (current !== null) await current.terminate();
    },
  };
}
