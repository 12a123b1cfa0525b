/**
 * The archive (issue 18): the writer that follows ingest (archiver.ts), and `archive.list`,
 * `restore`, `verify`, `prune` and `forget` over what it wrote.
 */
import { rm } from 'node:fs/promises';
import type Database from 'better-sqlite3';
import type {
  ArchiveDeletedResult,
  ArchivedSession,
  ArchiveListResult,
  ArchivePruneResult,
  ArchiveRestoreResult,
  ArchiveVerifyResult,
} from '../../shared/protocol/archive.js';
import { invalidParams } from '../../shared/protocol/errors.js';
import { timeBound } from '../../shared/text/time-span.js';
import type { IndexFollower } from '../ingest/index.js';
import type { Logger } from '../log/logger.js';
import { createArchiver } from './archiver.js';
import { createDeletionCheck } from './deletion-check.js';
import { type DeletionBook, deletedSession, deletionEvents, deletionsStatus } from './deletions.js';
import { forgetSession } from './forget.js';
import { sessionArchiveDir } from './layout.js';
import { archiveSources, restoreSession } from './restore.js';
import type { ArchiveStore } from './store.js';
import { verifyArchive } from './verify.js';

const DEFAULT_LIST_LIMIT = 50;
/** `archive.deleted` lists this many sessions unless asked: a cleanup's whole burst, most of the time. */
const DEFAULT_DELETED_LIMIT = 200;
/** The status line warns of a deletion memd did not hold for this long: a week of sessions has seen it. */
const STATUS_LINE_DELETION_WINDOW_MS = 7 * 86_400_000;

export interface ArchiveDeps {
  db: Database.Database;
  projectsDir: string;
  stateDir: string;
  log: Logger;
  clock: () => number;
  enabled: boolean;
  capBytes: number;
  /** The archive's book (store.ts): built before the sessions service, which asks it whether a session is archived. */
  store: ArchiveStore;
  /** The deletions ingest recorded (deletions.ts): built before ingest, whose commits write it. */
  deletions: DeletionBook;
  titleOf(sessionId: string): string | null;
  /** The names tables show per project folder (sessions/project-name.ts), so that the archive says them too. */
  projectNames?(): ReadonlyMap<string, string>;
  stopWork(sessionId: string): Promise<void>;
  forgetInMemory(sessionId: string): void;
  dropDerived(): void;
  /** This machine's device id: a forget leaves a tombstone for the other machines (issue 35). */
  deviceId: string;
}

export function createArchiveService(deps: ArchiveDeps) {
  const { store } = deps;
  const archiver = createArchiver({
    store,
    projectsDir: deps.projectsDir,
    stateDir: deps.stateDir,
    log: deps.log,
    clock: deps.clock,
    enabled: deps.enabled,
    capBytes: deps.capBytes,
  });
  const deletionCheck = createDeletionCheck({
    book: deps.deletions,
    store,
    stateDir: deps.stateDir,
    enabled: deps.enabled,
    clock: deps.clock,
    log: deps.log,
    settled: () => archiver.settled(),
  });
  const sessions = deps.db.prepare(`
    SELECT a.session_id AS sessionId, min(a.project) AS project, count(*) AS files, sum(a.source_bytes) AS sourceBytes, sum(a.archive_bytes) AS archiveBytes,
           max(a.archived_at) AS archivedAt, max(a.pruned_at IS NOT NULL) AS pruned,
           NOT EXISTS (SELECT 1 FROM files f WHERE f.session_id = a.session_id AND f.agent_id IS NULL AND f.gone = 0) AS transcriptGone
    FROM archive_files a WHERE (@session IS NULL OR a.session_id = @session)
    GROUP BY a.session_id ORDER BY max(a.archived_at) DESC, a.session_id LIMIT @limit OFFSET @offset`);
  const staleSessions = deps.db.prepare(`
    SELECT a.session_id AS sessionId, min(a.project) AS project, sum(a.archive_bytes) AS bytes FROM archive_files a
    LEFT JOIN session_aggregates s ON s.session_id = a.session_id
    WHERE a.pruned_at IS NULL GROUP BY a.session_id
    HAVING coalesce(max(s.last_activity), strftime('%Y-%m-%dT%H:%M:%fZ', max(a.archived_at) / 1000.0, 'unixepoch')) < @before`);

  const follower: IndexFollower = {
    // What ingest committed and the archive batched goes in at shutdown.
    stopStep: 'archive what was read',
    // The history found at start is archived once it is indexed, oldest first.
    // Deletions recorded before a crash or a stop are checked too.
    start: async () => {
      await archiver.start();
      await deletionCheck.run();
    },
    committed: () => {
      archiver.committed();
      // A check that fails is logged by the check; the next deletion or `archive.deleted` runs it again.
      if (deps.deletions.takeRecorded()) void deletionCheck.run().catch(() => undefined);
    },
    stop: () => archiver.flush(),
  };

  function deletedSessions(since: number, titled = true) {
    const rows = deps.deletions.sessionsSince(since);
    const names = rows.length === 0 ? new Map<string, string>() : (deps.projectNames?.() ?? new Map<string, string>());
    return rows.map((row) =>
      deletedSession(row, {
        projectName: (project) => names.get(project) ?? project,
        title: titled ? deps.titleOf : () => null,
      }),
    );
  }

  return {
    ...follower,
    status: () => archiver.status(),
    // Without titles: daemon.status is polled, and the status says no session by name.
    deletionsStatus: () => deletionsStatus(deletedSessions(0, false)),
    /** Sessions Claude Code deleted lately that memd did not hold whole: the status line's warning. */
    deletedNotHeld: () => deps.deletions.notHeldSince(deps.clock() - STATUS_LINE_DELETION_WINDOW_MS),

    async deleted(params: { since?: string; limit?: number }): Promise<ArchiveDeletedResult> {
      const since = params.since === undefined ? 0 : Date.parse(timeBound(params.since, deps.clock(), 'since'));
      await deletionCheck.run();
      const all = deletedSessions(since);
      const limit = params.limit ?? DEFAULT_DELETED_LIMIT;
      return { events: deletionEvents(all), sessions: all.slice(0, limit), truncated: all.length > limit };
    },

    list(params: { sessionId?: string; limit?: number; cursor?: string }): ArchiveListResult {
      const limit = params.limit ?? DEFAULT_LIST_LIMIT;
      const offset = params.cursor === undefined ? 0 : Number(/^o(\d{1,9})$/.exec(params.cursor)?.[1] ?? Number.NaN);
      if (!Number.isSafeInteger(offset))
        throw invalidParams('cursor is not one this daemon gave', { kind: 'BadCursor' });
      const rows = sessions.all({ session: params.sessionId ?? null, limit: limit + 1, offset }) as (Omit<
        ArchivedSession,
        'title' | 'projectName' | 'archivedAt' | 'pruned' | 'transcriptGone'
      > & {
        archivedAt: number;
        pruned: number;
        transcriptGone: number;
      })[];
      const names =
        rows.length === 0 ? new Map<string, string>() : (deps.projectNames?.() ?? new Map<string, string>());
      return {
        sessions: rows.slice(0, limit).map((row) => ({
          ...row,
          projectName: names.get(row.project) ?? row.project,
          title: deps.titleOf(row.sessionId),
          archivedAt: new Date(row.archivedAt).toISOString(),
          pruned: row.pruned === 1,
          transcriptGone: row.transcriptGone === 1,
        })),
        nextCursor: rows.length > limit ? `o${offset + limit}` : null,
        status: archiver.status(),
      };
    },

    async restore(sessionId: string, to: string | undefined): Promise<ArchiveRestoreResult> {
      // Whatever ingest committed of it last goes in first.
      await archiver.settled();
      return restoreSession(deps, sessionId, archiveSources(deps.stateDir, store.ofSession(sessionId)), to);
    },

    async verify(sessionId: string | undefined): Promise<ArchiveVerifyResult> {
      await archiver.settled();
      return verifyArchive(deps.stateDir, sessionId === undefined ? store.all() : store.ofSession(sessionId));
    },

    async prune(olderThan: string, dryRun: boolean): Promise<ArchivePruneResult> {
      const before = timeBound(olderThan, deps.clock(), 'olderThan');
      await archiver.settled();
      const stale = staleSessions.all({ before }) as { sessionId: string; project: string; bytes: number }[];
      if (!dryRun) {
        for (const session of stale) {
          store.markPruned(session.sessionId, deps.clock());
          await rm(sessionArchiveDir(deps.stateDir, session.project, session.sessionId), {
            recursive: true,
            force: true,
          });
        }
        if (stale.length > 0)
          deps.log.info('archive: pruned', {
            sessions: stale.length,
            bytes: stale.reduce((sum, session) => sum + session.bytes, 0),
          });
      }
      return {
        dryRun,
        sessions: stale.map((session) => session.sessionId),
        freedBytes: stale.reduce((sum, session) => sum + session.bytes, 0),
      };
    },

    async forget(sessionId: string, deleteTranscripts: boolean) {
      await archiver.settled();
      return forgetSession(
        {
          db: deps.db,
          projectsDir: deps.projectsDir,
          stateDir: deps.stateDir,
          stopWork: deps.stopWork,
          forgetInMemory: deps.forgetInMemory,
          dropDerived: deps.dropDerived,
          scrubLogs: (id) => deps.log.scrub(id),
          deviceId: deps.deviceId,
        },
        sessionId,
        deleteTranscripts,
      );
    },
  };
}

export type ArchiveService = ReturnType<typeof createArchiveService>;
