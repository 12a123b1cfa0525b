/**
 * Sessions as a part of the daemon: the accounting the protocol reports, over the read model and
 * the aggregates ingest keeps. It reads the memory state from extraction and whether the archive
 * holds a session from the archive's book, both built before it; the archive service, which
 * forgets sessions, is built after it.
 */
import type Database from 'better-sqlite3';
import type { SessionMemoryState } from '../../shared/protocol/sessions.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import type { Bus } from '../bus/bus.js';
import type { DomainBus } from '../bus/domain-events.js';
import type { Ingestor } from '../ingest/index.js';
import type { Logger } from '../log/logger.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import type { AggregateStore } from './aggregates.js';
import { sessionDevices } from './devices.js';
import type { SessionReports } from './reports.js';
import { createSessionService, type SessionService } from './service.js';
import { summarizeSession } from './summary.js';
import type { SessionWindows } from './windows.js';

export interface SessionsPartDeps {
  db: Database.Database;
  bus: Bus;
  events: DomainBus;
  log: Logger;
  clock: () => number;
  thresholdEnv: ThresholdEnv;
  ingest: { ingestor: Pick<Ingestor, 'progress'> };
  transcripts: Transcripts;
  aggregates: AggregateStore;
  windows: SessionWindows;
  reports: SessionReports;
  extraction: { memoryState(sessionId: string): SessionMemoryState };
  /** The archive's book (archive/store.ts). */
  archived: { hasMainTranscript(sessionId: string): boolean };
  /** This machine's device (sync/device.ts): named first among a synced session's machines. */
  device: { name: string };
}

export function buildSessions(deps: SessionsPartDeps): SessionService {
  const { bus, events, transcripts, aggregates, windows, extraction, archived } = deps;
  const { ingestor } = deps.ingest;
  return createSessionService({
    windows,
    reports: deps.reports,
    sessionIndex: () => transcripts.sessions(),
    page: (query) => aggregates.page(query),
    summarize: (sessionId) =>
      summarizeSession(transcripts, aggregates, sessionId, deps.thresholdEnv, windows.forSession(sessionId)),
    sessionMemory: (sessionId) => extraction.memoryState(sessionId),
    archived: (sessionId) => archived.hasMainTranscript(sessionId),
    devices: sessionDevices(deps.db, deps.device.name),
    bus,
    log: deps.log,
    // Events no client subscribed to are not computed.
    wanted: (topic) => bus.wanted(topic),
    // Threshold states are, once ingest is live, clients or not: auto-compaction starts from them.
    // Not during the backfill: history is not compacted, and summarizing every session on the way
    // would fill the entry cache (RSS) and slow the backfill.
    statesWanted: () => ingestor.progress().state === 'live',
    clock: deps.clock,
    onState: (sessionId, state, previous) => events.publish('session.state', { sessionId, state, previous }),
  });
}
