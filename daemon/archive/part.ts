/**
 * The archive as a part of the daemon. Its book (store.ts) is built first, on its own, because the
 * sessions service asks it whether a session is archived; the service, built after the sessions
 * service, titles its listings from it and forgets a session in every part that keeps one.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { MemdPaths } from '../../shared/paths.js';
import type { Logger } from '../log/logger.js';
import { projectNames } from '../sessions/project-name.js';
import type { SessionService } from '../sessions/service.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import type { DeletionBook } from './deletions.js';
import { type ArchiveService, createArchiveService } from './service.js';
import type { ArchiveStore } from './store.js';

export interface ArchivePartDeps {
  db: Database.Database;
  paths: Pick<MemdPaths, 'projectsDir' | 'stateDir'>;
  config: Pick<MemdConfig, 'archiveEnabled' | 'archiveMaxBytes'>;
  log: Logger;
  clock: () => number;
  /** The archive's book, built before the sessions service. */
  archived: ArchiveStore;
  /** The deletions on the record, built before ingest. */
  deletions: DeletionBook;
  transcripts: Pick<Transcripts, 'clear'>;
  sessions: Pick<SessionService, 'title' | 'forgetAll' | 'forgetSession'>;
  extraction: { cancel(sessionId: string): Promise<void> };
  usage: { dropOrphans(): number };
  /** This machine's device (sync/device.ts). */
  device: { id: string };
}

export function buildArchive(deps: ArchivePartDeps): ArchiveService {
  const { db, paths, transcripts, sessions, extraction, usage } = deps;
  return createArchiveService({
    db,
    projectsDir: paths.projectsDir,
    stateDir: paths.stateDir,
    log: deps.log,
    clock: deps.clock,
    enabled: deps.config.archiveEnabled,
    capBytes: deps.config.archiveMaxBytes,
    deviceId: deps.device.id,
    store: deps.archived,
    deletions: deps.deletions,
    projectNames: () => projectNames(db),
    titleOf: (sessionId) => sessions.title(sessionId),
    stopWork: (sessionId) => extraction.cancel(sessionId),
    // The usage book's share of the session's files is taken back with them.
    dropDerived: () => void usage.dropOrphans(),
    forgetInMemory: (sessionId) => {
      transcripts.clear();
      sessions.forgetAll();
      sessions.forgetSession(sessionId);
    },
  });
}
