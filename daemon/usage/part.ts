/** The usage book as a part of the daemon: it needs only the database, and the archive (which takes back a forgotten session's share) is built after it. */
import type Database from 'better-sqlite3';
import type { Logger } from '../log/logger.js';
import { createProjectNames } from '../sessions/project-name.js';
import { createUsageService, type UsageService } from './service.js';

export interface UsagePartDeps {
  db: Database.Database;
  log: Logger;
  clock: () => number;
}

export function buildUsage(deps: UsagePartDeps): UsageService {
  const { db } = deps;
  return createUsageService({ db, log: deps.log, clock: deps.clock, projectNames: createProjectNames(db) });
}
