/**
 * Sync as a part of the daemon: a follower of the index (its rounds start once the backfill is
 * done, as the archive's catch-up does, and stop at shutdown), fed by the archive's book and
 * feeding ingest the other machines' decoded transcripts.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import { type MemdPaths, syncedTranscriptsDir } from '../../shared/paths.js';
import type { ArchiveService } from '../archive/service.js';
import type { ArchiveStore } from '../archive/store.js';
import { type IndexFollower, type Ingestor, scanTranscripts } from '../ingest/index.js';

import type { Logger } from '../log/logger.js';
import type { DecodedFile } from './decode-pool.js';
import type { DeviceIdentity } from './device.js';
import { isDeviceId } from './layout.js';
import { createMemdirSync, type MemdirSync } from './memdir-sync.js';
import { createSyncService, type SyncService } from './service.js';

/** At most this many decoded files go to ingest as changed files; more go as a backfill (newest first, grouped). */
const LIVE_HAND_OVER_FILES = 8;

export interface SyncPartDeps {
  db: Database.Database;
  paths: Pick<MemdPaths, 'projectsDir' | 'stateDir'>;
  config: Pick<MemdConfig, 'syncDir' | 'syncScanMs'>;
  log: Logger;
  clock: () => number;
  device: DeviceIdentity;
  archived: ArchiveStore;
  archive: Pick<ArchiveService, 'forget'>;
  ingest: { ingestor: Pick<Ingestor, 'touch' | 'backfill' | 'holdBackfill'> };
}

export type SyncPart = SyncService & IndexFollower & { memdir: MemdirSync };

/** Every decoded file of every device, as the disk has them, for the start's backfill. */
async function decodedFiles(stateDir: string): Promise<DecodedFile[]> {
  const root = syncedTranscriptsDir(stateDir);
  const found: DecodedFile[] = [];
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || !isDeviceId(entry.name)) continue;
    found.push(...(await scanTranscripts(join(root, entry.name))));
  }
  return found;
}

export function buildSync(deps: SyncPartDeps): SyncPart {
  const { ingestor } = deps.ingest;
  // Built whether or not a sync folder is set: conflicts found earlier stay listed and resolvable.
  const memdir = createMemdirSync({
    db: deps.db,
    projectsDir: deps.paths.projectsDir,
    stateDir: deps.paths.stateDir,
    syncDir: deps.config.syncDir,
    deviceId: deps.device.id,
    log: deps.log,
    clock: deps.clock,
  });
  const service = createSyncService({
    db: deps.db,
    projectsDir: deps.paths.projectsDir,
    stateDir: deps.paths.stateDir,
    syncDir: deps.config.syncDir,
    scanMs: deps.config.syncScanMs,
    device: deps.device,
    log: deps.log,
    clock: deps.clock,
    archived: deps.archived,
    // A session forgotten on another machine is forgotten here whole, Claude Code's copies included (docs/sync.md).
    forget: async (sessionId) => void (await deps.archive.forget(sessionId, true)),
    ingest: (files, comingBytes) => {
      if (files.length <= LIVE_HAND_OVER_FILES && comingBytes === 0)
        for (const file of files) ingestor.touch(file.path);
      else
        ingestor.backfill(
          files,
          [],
          files.reduce((sum, file) => sum + file.size, comingBytes),
        );
    },
    holdIngest: () => ingestor.holdBackfill(),
    // Memory files after the archive's: this machine's mirrored, then the others' merged.
    extraRounds: [
      {
        name: 'memory files',
        run: async (others) => {
          await memdir.publish();
          await memdir.receive(others);
        },
      },
    ],
  });
  const startRounds = service.start;
  return Object.assign(service, {
    memdir,
    stopStep: 'sync',
    async start() {
      // Other machines' transcripts decoded before this start, read again where ingest has not read them to their end.
      const found = await decodedFiles(deps.paths.stateDir);
      const onDisk = new Set(found.map((file) => file.path));
      const missing = (
        deps.db.prepare('SELECT path FROM files WHERE device IS NOT NULL AND gone = 0').pluck().all() as string[]
      ).filter((path) => !onDisk.has(path));
      if (found.length > 0 || missing.length > 0) ingestor.backfill(found, missing);
      startRounds();
    },
  });
}
