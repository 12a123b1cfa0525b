/**
 * The main thread's side of a worker thread that answers requests by id: the parse worker and
 * the offline extraction worker both speak it. The worker is unref'd (it never keeps the daemon
 * alive on its own); one that dies or errs fails every request it had, and the next message
 * starts a new one.
 */
import { Worker } from 'node:worker_threads';

/** What a worker answers: the reply for a request id, or the error that request ended with. */
export type WorkerReply<R> = (R & { id: number }) | { id: number; error: string };

export interface WorkerClient<R> {
  /** Sends the message built for a fresh id; resolves with the worker's reply to that id. */
  request(message: (id: number) => unknown, signal?: AbortSignal): Promise<R & { id: number }>;
  /** Sends a message that gets no reply (in order with the requests). */
  send(message: unknown): void;
  /** Fails what is waiting and stops the worker. */
  close(): Promise<void>;
}

export interface WorkerClientOptions {
  /** The compiled script (workers/script.ts finds it). */
  script: string;
  /** Named in errors: "the parse worker exited with code 1". */
  name: string;
  workerData?: unknown;
  /** Start the worker now, so that loading its modules overlaps the caller's start-up. */
  eager?: boolean;
  /** The error a request gets when its signal aborts. */
  cancelled?: () => Error;
}

interface Waiter<R> {
  resolve(value: R & { id: number }): void;
  reject(error: Error): void;
}

export function createWorkerClient<R>(options: WorkerClientOptions): WorkerClient<R> {
  const waiting = new Map<number, Waiter<R>>();
  let nextId = 1;

  const failAll = (error: Error) => {
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
  };

  const spawn = (): Worker => {
    const started = new Worker(
      options.script,
      options.workerData === undefined ? {} : { workerData: options.workerData },
    );
    started.unref();
    started.on('message', (reply: WorkerReply<R>) => {
      const waiter = waiting.get(reply.id);
      if (waiter === undefined) return;
      waiting.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve(reply);
    });
    const lost = (error: Error) => {
      if (worker !== started) return;
      worker = null;
      failAll(error);
    };
    started.on('error', lost);
    started.on('exit', (code) => lost(new Error(`the ${options.name} exited with code ${code}`)));
    return started;
  };
  let worker: Worker | null = options.eager === true ? spawn() : null;

  const send = (message: unknown) => {
    worker ??= spawn();
    worker.postMessage(message);
  };
  const cancelled = options.cancelled ?? (() => new Error(`${options.name} request cancelled`));

  return {
    request(message, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(cancelled());
          return;
        }
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        // A cancelled request is forgotten; the worker's answer, when it comes, is dropped.
        signal?.addEventListener('abort', () => {
          if (waiting.delete(id)) reject(cancelled());
        });
        send(message(id));
      });
    },
    send,
    async close() {
      const current = worker;
      worker = null;
      failAll(new Error(`the ${options.name} was closed`));
      if (current !== null) await current.terminate();
    },
  };
}
