/**
 * The search processes (query-process.ts) and the queue in front of them (issue 27): a few
 * processes answer `search.query`; each client connection has at most one of them at a time and
 * the connections waiting take turns, so that one client's queries never hold another's; a query
 * past its deadline, or whose client cancelled or left, is stopped by killing its process (the
 * only way to end a long SQLite step), and a fresh one takes its place.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { SearchStatus } from '../../shared/protocol/search.js';
import type { Logger } from '../log/logger.js';
import { workerScript } from '../workers/script.js';
import { processCpuMs } from './cpu-time.js';
import type { RawHit, SearchFilter } from './query.js';

export interface SearchRequest {
  id: number;
  filter: SearchFilter;
  now: number;
}

export type WorkerHit = RawHit & {
  snippet: string | null;
  /** A question's hit (issue 33): the share of the question's weight its passage holds (0-1). */
  coverage?: number;
};

export interface WorkerResult {
  hits: WorkerHit[];
  /** Where the next page starts (walk.ts); null when every match has been looked at. */
  nextCursor: string | null;
  /** The page ran out of its time budget with fewer hits than asked: the cursor goes on. */
  partial: boolean;
}

/** A search process's first message: its modules loaded and the database open. */
export interface SearchReady {
  ready: true;
}

export type SearchReply = { id: number } & (
  | WorkerResult
  | { rpcError: { code: number; kind: string; message: string; data: Record<string, unknown> } }
  | { error: string }
);

/**
 * A search process's V8 heap: a query's candidates and snippets take a few MB; a bound keeps a
 * runaway from growing memd's footprint past the 400 MB.
 */
const PROCESS_HEAP_MB = 128;
/**
 * A query running this long is heavy (the bench's searches take 1-10 ms): its process is niced so
 * that on a busy machine the short queries beside it get the CPU first. Its niceness cannot be
 * taken back without privileges, so the process is replaced once its query ends.
 */
const HEAVY_QUERY_MS = 100;
const HEAVY_NICENESS = 10;
/**
 * ...unless it used less CPU than this share of that time: then it was waiting for the CPU on a
 * loaded machine, not working, and is looked at again after as long. Replacing its process would
 * make the next query pay a cold one (120-380 ms measured under load, issue 33).
 */
const HEAVY_CPU_SHARE = 0.5;

export interface SearchPoolOptions {
  dbPath: string;
  /** Processes answering at once (`searchProcesses`). */
  size: number;
  /** A query running longer is stopped (`searchDeadlineMs`). */
  deadlineMs: number;
  log: Logger;
}

/** Who asked: a connection's id (0 for the daemon itself); each has one query running at most. */
export type SearchOwner = number;

interface Job {
  id: number;
  owner: SearchOwner;
  filter: SearchFilter;
  now: number;
  signal: AbortSignal | undefined;
  resolve(result: WorkerResult): void;
  reject(error: Error): void;
  /** Takes the job out when its signal aborts. */
  onAbort: () => void;
}

interface Slot {
  child: ChildProcess | null;
  /** The process has said it is ready; a job given before waits for that to start. */
  ready: boolean;
  job: Job | null;
  startedAt: number;
  timer: NodeJS.Timeout | null;
  heavyTimer: NodeJS.Timeout | null;
  /** The process was niced for a heavy query: replaced when that ends. */
  niced: boolean;
  /** The process's CPU time when its query began (null: unknown, wall time decides). */
  cpuAtStart: number | null;
}

function cancelled(): RpcError {
  return new RpcError(ErrorCode.Cancelled, 'Cancelled', 'the request was cancelled');
}

export function createSearchPool(options: SearchPoolOptions) {
  const script = workerScript(import.meta.url, 'query-process.js');
  const slots: Slot[] = Array.from({ length: options.size }, () => ({
    child: null,
    ready: false,
    job: null,
    startedAt: 0,
    timer: null,
    heavyTimer: null,
    niced: false,
    cpuAtStart: null,
  }));
  /** Each owner's waiting queries; the map's order is the owners' turn (one served goes last). */
  const queues = new Map<SearchOwner, Job[]>();
  const running = new Set<SearchOwner>();
  const stopped = { deadline: 0, cancelled: 0 };
  let nextId = 1;
  let closed = false;

  const spawn = (slot: Slot): ChildProcess => {
    const child = fork(script, [options.dbPath], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${PROCESS_HEAP_MB}`],
    });
    // Never keeps the daemon alive on its own.
    child.unref();
    child.channel?.unref();
    slot.ready = false;
    slot.niced = false;
    child.on('message', (reply: SearchReply | SearchReady) => {
      if (slot.child !== child) return;
      if ('ready' in reply) {
        slot.ready = true;
        if (slot.job !== null) begin(slot, child, slot.job);
        return;
      }
      if (slot.job?.id !== reply.id) return;
      const job = finish(slot);
      if (slot.niced) retire(slot);
      if ('rpcError' in reply)
        job.reject(new RpcError(reply.rpcError.code, reply.rpcError.kind, reply.rpcError.message, reply.rpcError.data));
      else if ('error' in reply) job.reject(new Error(reply.error));
      else job.resolve({ hits: reply.hits, nextCursor: reply.nextCursor, partial: reply.partial });
      pump();
    });
    const lost = (why: string) => {
      if (slot.child !== child) return;
      slot.child = null;
      if (slot.job !== null) finish(slot).reject(new Error(`the search process ${why}`));
      pump();
    };
    child.on('error', (error) => lost(`failed: ${error.message}`));
    child.on('exit', (code, signal) => lost(`exited (${signal ?? code})`));
    return child;
  };

  /** The slot's job, taken off it (the process stays, idle). */
  const finish = (slot: Slot): Job => {
    const job = slot.job as Job;
    slot.job = null;
    if (slot.timer !== null) clearTimeout(slot.timer);
    if (slot.heavyTimer !== null) clearTimeout(slot.heavyTimer);
    slot.timer = null;
    slot.heavyTimer = null;
    running.delete(job.owner);
    job.signal?.removeEventListener('abort', job.onAbort);
    return job;
  };

  /** Kills the slot's process (its query with it) and starts the next one's. */
  const stop = (slot: Slot, reason: keyof typeof stopped, error: Error) => {
    const child = slot.child;
    slot.child = null;
    const job = finish(slot);
    stopped[reason]++;
    child?.kill('SIGKILL');
    options.log.warn('a search was stopped', {
      reason,
      ms: Math.round(performance.now() - slot.startedAt),
      queryChars: job.filter.query.length,
    });
    job.reject(error);
    // A fresh process for the next query, started now so that it does not wait for the start.
    if (!closed) slot.child = spawn(slot);
    // After the other requests a departing client leaves have been cancelled too, so that its
    // next queued query is not started only to be stopped.
    setImmediate(pump);
  };

  /** Replaces the slot's (niced) process with a fresh one. */
  const retire = (slot: Slot) => {
    const child = slot.child;
    slot.child = null;
    child?.kill('SIGKILL');
    if (!closed) slot.child = spawn(slot);
  };

  /** Sends the job to its ready process; its deadline counts from now. */
  const begin = (slot: Slot, child: ChildProcess, job: Job) => {
    slot.startedAt = performance.now();
    slot.timer = setTimeout(() => stop(slot, 'deadline', timedOut()), options.deadlineMs);
    slot.cpuAtStart = child.pid === undefined ? null : processCpuMs(child.pid);
    const weigh = () => {
      slot.heavyTimer = null;
      if (slot.child !== child || child.pid === undefined) return;
      const cpu = slot.cpuAtStart === null ? null : processCpuMs(child.pid);
      if (cpu !== null && cpu - (slot.cpuAtStart as number) < HEAVY_QUERY_MS * HEAVY_CPU_SHARE) {
        slot.cpuAtStart = cpu;
        slot.heavyTimer = setTimeout(weigh, HEAVY_QUERY_MS);
        return;
      }
      try {
        setPriority(child.pid, HEAVY_NICENESS);
        slot.niced = true;
      } catch {
        // Not allowed here (a container's policy): the query runs on at its priority.
      }
    };
    slot.heavyTimer = setTimeout(weigh, HEAVY_QUERY_MS);
    child.send({ id: job.id, filter: job.filter, now: job.now } satisfies SearchRequest);
  };

  const timedOut = () =>
    new RpcError(
      ErrorCode.TimedOut,
      'SearchTimeout',
      `the search took longer than ${options.deadlineMs} ms and was stopped: search for fewer or rarer words, or add a session, project or time filter`,
      { deadlineMs: options.deadlineMs },
    );

  /** The next waiting job whose owner has no query running, owners taking turns. */
  const nextJob = (): Job | undefined => {
    for (const [owner, queue] of queues) {
      if (running.has(owner)) continue;
      const job = queue.shift() as Job;
      queues.delete(owner);
      if (queue.length > 0) queues.set(owner, queue);
      return job;
    }
    return undefined;
  };

  const pump = () => {
    if (closed) return;
    for (const slot of slots) {
      if (slot.job !== null) continue;
      const job = nextJob();
      if (job === undefined) return;
      slot.child ??= spawn(slot);
      slot.job = job;
      running.add(job.owner);
      if (slot.ready) begin(slot, slot.child, job);
    }
  };

  const remove = (job: Job) => {
    const queue = queues.get(job.owner);
    const at = queue?.indexOf(job) ?? -1;
    if (queue === undefined || at === -1) return false;
    queue.splice(at, 1);
    if (queue.length === 0) queues.delete(job.owner);
    return true;
  };

  return {
    /** The query's answer, from the next process free for its owner. */
    query(filter: SearchFilter, now: number, owner: SearchOwner, signal?: AbortSignal): Promise<WorkerResult> {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new RpcError(ErrorCode.ShuttingDown, 'ShuttingDown', 'the daemon is shutting down'));
        if (signal?.aborted) return reject(cancelled());
        const job: Job = {
          id: nextId++,
          owner,
          filter,
          now,
          signal,
          resolve,
          reject,
          onAbort: () => {
            if (remove(job)) return reject(cancelled());
            const slot = slots.find((candidate) => candidate.job === job);
            if (slot !== undefined) stop(slot, 'cancelled', cancelled());
          },
        };
        signal?.addEventListener('abort', job.onAbort, { once: true });
        const queue = queues.get(owner);
        if (queue === undefined) queues.set(owner, [job]);
        else queue.push(job);
        pump();
      });
    },

    status(): SearchStatus {
      let queued = 0;
      for (const queue of queues.values()) queued += queue.length;
      return {
        processes: slots.filter((slot) => slot.child !== null).length,
        running: running.size,
        queued,
        deadlineMs: options.deadlineMs,
        stoppedAtDeadline: stopped.deadline,
        stoppedCancelled: stopped.cancelled,
      };
    },

    close() {
      closed = true;
      const gone = new RpcError(ErrorCode.ShuttingDown, 'ShuttingDown', 'the daemon is shutting down');
      for (const slot of slots) {
        const child = slot.child;
        slot.child = null;
        if (slot.job !== null) finish(slot).reject(gone);
        child?.kill('SIGKILL');
      }
      for (const queue of queues.values()) for (const job of queue) job.reject(gone);
      queues.clear();
    },
  };
}

export type SearchPool = ReturnType<typeof createSearchPool>;
