/**
 * The usage book as a part of the daemon: it needs the database and this machine's device (issue
 * 35: its transcripts rank and report under it among other machines'), and the archive (which
 * takes back a forgotten session's share) is built after it.
 */
import type Database from 'better-sqlite3';
import type { Logger } from '../log/logger.js';
import { createProjectNames } from '../sessions/project-name.js';
import type { ThisDevice } from './devices.js';
import { createUsageService, type UsageService } from './service.js';

export interface UsagePartDeps {
  db: Database.Database;
  log: Logger;
  clock: () => number;
  device: ThisDevice;
}

export function buildUsage(deps: UsagePartDeps): UsageService {
  const { db } = deps;
  return createUsageService({
    db,
    log: deps.log,
    clock: deps.clock,
    device: deps.device,
    projectNames: createProjectNames(db),
  });
}
