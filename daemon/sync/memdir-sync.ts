/**
 * Memory files across machines (issue 35, docs/sync.md): project and team memory mirrored into
 * this machine's subtree of the sync folder (memdir-publish.ts) and merged from the others'
 * (memdir-receive.ts) by version vectors and etags; a memory changed on two machines from one
 * version is a conflict, both versions kept and listed (memdir-conflicts.ts), never a silent loss.
 *
 * The sync service calls `publish()` then `receive(otherDevices)` on every scan; the steps, and
 * `resolve`, run one at a time (they share the rows), and each is cheap when nothing changed.
 */

import type { MemdirConflict, MemdirResolveResult } from '../../shared/protocol/memdir.js';
import { createMemdirStore } from '../memory/memdir/store.js';
import { createMemdirBook } from './memdir-book.js';
import { createConflictDesk, type ResolveInput } from './memdir-conflicts.js';
import { createSyncContext, type MemdirSyncDeps } from './memdir-context.js';
import { createPublisher } from './memdir-publish.js';
import { createReceiver } from './memdir-receive.js';

export type { ResolveInput } from './memdir-conflicts.js';
export type { MemdirSyncDeps } from './memdir-context.js';

/** Resolved conflicts are pruned at most this often: a query and a few unlinks, not worth every scan. */
const PRUNE_EVERY_MS = 3_600_000;

export interface MemdirSync {
  /** This machine's memory files into its subtree, then its manifest. */
  publish(): Promise<void>;
  /** The other devices' manifests (ids from the sync folder), merged here. */
  receive(devices: readonly string[]): Promise<void>;
  /** The open conflicts, oldest first; of one project (folder name or absolute cwd) when given. */
  conflicts(project?: string): MemdirConflict[];
  /** Chooses one version of a conflicting memory (`memdir.resolve`). */
  resolve(input: ResolveInput): Promise<MemdirResolveResult>;
  readonly deviceId: string;
  readonly syncing: boolean;
}

export function createMemdirSync(deps: MemdirSyncDeps): MemdirSync {
  const store = createMemdirStore({ projectsDir: deps.projectsDir, clock: deps.clock });
  const ctx = createSyncContext(deps, createMemdirBook(deps.db), store);
  const publisher = createPublisher(ctx);
  const receiver = createReceiver(ctx);
  const desk = createConflictDesk(ctx);
  let prunedAt = Number.NEGATIVE_INFINITY;
  let queue: Promise<unknown> = Promise.resolve();

  /** One step at a time: each reads and writes the same rows across awaits. */
  function serial<T>(step: () => Promise<T>): Promise<T> {
    const run = queue.then(step, step);
    queue = run.catch(() => undefined);
    return run;
  }

  return {
    deviceId: deps.deviceId,
    syncing: deps.syncDir !== '',
    publish: () =>
      serial(async () => {
        await publisher.publish();
        if (deps.clock() - prunedAt < PRUNE_EVERY_MS) return;
        prunedAt = deps.clock();
        await desk.prune();
      }),
    receive: (devices) => serial(() => receiver.receive(devices)),
    conflicts: (project) => desk.list(project),
    resolve: (input) => serial(() => desk.resolve(input)),
  };
}
