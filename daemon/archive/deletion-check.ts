/**
 * What memd holds of each deleted transcript (issue 31): once the archive settled what it was
 * writing, the archive's copy of the file is inflated whole (verify.ts) and its bytes compared
 * with what memd had read of the file. One pass at a time; calls while one is queued share it.
 */
import type { Logger } from '../log/logger.js';
import type { DeletionBook, UncheckedDeletion } from './deletions.js';
import type { ArchiveStore } from './store.js';
import { checkArchived } from './verify.js';

export interface DeletionCheckDeps {
  book: DeletionBook;
  store: Pick<ArchiveStore, 'get'>;
  stateDir: string;
  enabled: boolean;
  clock: () => number;
  log: Logger;
  /** Resolves once the archive wrote what it was writing. */
  settled(): Promise<void>;
}

interface Held {
  bytes: number;
  verified: boolean;
  problem: string | null;
}

async function heldOf(deps: DeletionCheckDeps, deletion: UncheckedDeletion): Promise<Held> {
  const row = deps.store.get(deletion.path);
  if (row === undefined || (row.source_bytes === 0 && deletion.committed > 0))
    return {
      bytes: 0,
      verified: deletion.committed === 0,
      problem: deps.enabled ? 'it went before memd archived it' : 'the archive is off',
    };
  if (row.pruned_at !== null) return { bytes: 0, verified: false, problem: 'archive prune had removed its copy' };
  const problem = await checkArchived(deps.stateDir, row);
  if (problem !== null) return { bytes: row.source_bytes, verified: false, problem: `its copy ${problem}` };
  if (row.source_bytes < deletion.committed)
    return {
      bytes: row.source_bytes,
      verified: false,
      problem: `the archive holds ${row.source_bytes} of the ${deletion.committed} bytes memd had read`,
    };
  return { bytes: row.source_bytes, verified: true, problem: null };
}

export function createDeletionCheck(deps: DeletionCheckDeps) {
  let queued: Promise<void> | null = null;
  let last: Promise<void> = Promise.resolve();

  async function pass(): Promise<void> {
    await deps.settled();
    for (const deletion of deps.book.unchecked()) {
      const held = await heldOf(deps, deletion);
      deps.book.checked(deletion.id, held, deps.clock());
      if (!held.verified) deps.log.warn('archive: a deleted transcript is not held whole', { path: deletion.path });
    }
  }

  return {
    /** Checks every deletion not checked yet; resolves when they are. */
    run(): Promise<void> {
      if (queued !== null) return queued;
      const next = last.then(() => {
        queued = null;
        return pass();
      });
      queued = next;
      last = next.catch((error: unknown) =>
        deps.log.error('archive: checking deleted transcripts failed', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
      return next;
    },
  };
}

export type DeletionCheck = ReturnType<typeof createDeletionCheck>;
