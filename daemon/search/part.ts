/** Search as a part of the daemon: the query processes on the database file, titles from the sessions service, open turns from extraction. */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { MemdPaths } from '../../shared/paths.js';
import type { Logger } from '../log/logger.js';
import { createProjectNames } from '../sessions/project-name.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createSearchService, type SearchService } from './service.js';

export interface SearchPartDeps {
  db: Database.Database;
  paths: Pick<MemdPaths, 'dbPath'>;
  config: Pick<MemdConfig, 'searchProcesses' | 'searchDeadlineMs'>;
  log: Logger;
  clock: () => number;
  transcripts: Transcripts;
  sessions: { title(sessionId: string): string | null };
  extraction: { agentSessions(): readonly string[] };
}

export function buildSearch(deps: SearchPartDeps): SearchService {
  const { db, transcripts, sessions, extraction } = deps;
  return createSearchService({
    db,
    dbPath: deps.paths.dbPath,
    processes: deps.config.searchProcesses,
    deadlineMs: deps.config.searchDeadlineMs,
    log: deps.log,
    clock: deps.clock,
    titleOf: (sessionId) => sessions.title(sessionId),
    projectNames: createProjectNames(db),
    conversation: (sessionId, signal) => transcripts.conversation(sessionId, signal),
    read: (path, entries, signal) => transcripts.read(path, entries, signal),
    openTurns: () => extraction.agentSessions(),
  });
}
