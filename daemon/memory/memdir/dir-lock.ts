/**
 * The lock of one memory dir, held while a memory and the index are changed: proper-lockfile on
 * `<dir>/.memdir.lock` (a name no memory can take: memory names never start with a dot), so
 * every process that writes the dir through memd's code — the daemon, tests, tools — takes turns.
 * Within one process the writers of a dir queue up first, so they do not spin on the lock file.
 */

import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';

export const DIR_LOCK_NAME = '.memdir.lock';
/** A holder that died is taken over after this (proper-lockfile refreshes a live one at half of it). */
const STALE_MS = 10_000;
/**
 * How long a writer waits for the others: a change takes a few ms (two fsynced writes), so this
 * covers a long queue of writers from several processes (about 15 s in all).
 */
const RETRY = { retries: 200, factor: 1.3, minTimeout: 2, maxTimeout: 100 } as const;

/**
 * proper-lockfile retries on every error, so a dir memd may not write (EACCES, a full disk)
 * would spin for the whole retry budget: only a lock held by another writer is waited for.
 */
async function lockWhenFree(dir: string, options: Parameters<typeof lockfile.lock>[1]): Promise<() => Promise<void>> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await lockfile.lock(dir, { ...options, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED' || attempt >= RETRY.retries) throw error;
      const wait = Math.min(RETRY.maxTimeout, RETRY.minTimeout * RETRY.factor ** attempt) * (1 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

const queues = new Map<string, Promise<unknown>>();

export async function withDirLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(dir) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      let compromised: Error | null = null;
      const release = await lockWhenFree(dir, {
        lockfilePath: join(dir, DIR_LOCK_NAME),
        realpath: false,
        stale: STALE_MS,
        onCompromised: (error) => {
          compromised = error;
        },
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOCKED')
          throw new RpcError(
            ErrorCode.Locked,
            'Locked',
            `the memory dir ${dir} stayed locked by another writer; try again`,
          );
        throw error;
      });
      try {
        const result = await work();
        if (compromised !== null)
          throw new RpcError(
            ErrorCode.Conflict,
            'Conflict',
            `the lock of ${dir} was lost during the write (${(compromised as Error).message}); read again and retry`,
          );
        return result;
      } finally {
        await release().catch(() => undefined);
      }
    });
  queues.set(dir, run);
  try {
    return await run;
  } finally {
    if (queues.get(dir) === run) queues.delete(dir);
  }
}
