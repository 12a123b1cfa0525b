/**
 * Ingest as a part of the daemon: the ingestor, which tells the others what it committed through
 * the domain bus, and the watcher that feeds it (started once the socket is open).
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import { type MemdPaths, syncedTranscriptsDir } from '../../shared/paths.js';
import { transcriptRoots } from '../../shared/transcript/layout.js';
import type { Bus } from '../bus/bus.js';
import type { DomainBus } from '../bus/domain-events.js';
import type { Logger } from '../log/logger.js';
import { createIngestor, type Ingestor } from './ingestor.js';
import type { LineParser } from './parser.js';
import type { CommitObserver } from './types.js';
import { createWatcher, type Watcher } from './watcher.js';

export interface IngestPartDeps {
  db: Database.Database;
  bus: Bus;
  events: DomainBus;
  log: Logger;
  clock: () => number;
  paths: Pick<MemdPaths, 'projectsDir' | 'stateDir'>;
  config: Pick<MemdConfig, 'ingestSweepMs'>;
  /** The parse worker bootstrap started before the store opened. */
  parser: LineParser;
  /** What ingest keeps in its own transactions: the sessions' aggregates. */
  observer: CommitObserver;
}

export interface IngestPart {
  ingestor: Ingestor;
  watcher: Watcher;
}

export function buildIngest(deps: IngestPartDeps): IngestPart {
  const { db, events, log, clock, paths } = deps;
  const ingestor = createIngestor({
    db,
    bus: deps.bus,
    log,
    clock,
    projectsDir: paths.projectsDir,
    // Other machines' transcripts, decoded by sync (issue 35), are read from the state dir as well.
    roots: transcriptRoots(paths.projectsDir, syncedTranscriptsDir(paths.stateDir)),
    onSessionsChanged: (sessionIds) =>
      events.publish('transcripts.committed', { sessionIds, live: ingestor.progress().state === 'live' }),
    onBackfillDone: () => events.publish('transcripts.backfilled', {}),
    // The followers wait out a later backfill as they wait out the first: told once it is read.
    onBacklogDrained: () => events.publish('transcripts.committed', { sessionIds: [], live: true }),
    observer: deps.observer,
    parser: deps.parser,
  });
  const watcher = createWatcher({
    root: paths.projectsDir,
    ingestor,
    db,
    log,
    clock,
    sweepMs: deps.config.ingestSweepMs,
  });
  return { ingestor, watcher };
}
