/**
 * Compaction as a part of the daemon: the four layers bound to the daemon's paths and settings,
 * with the model's summarizer when there is access (the offline one rebuilds a fragment it
 * returns) and the session memory extraction keeps; thresholds and prices from the sessions service.
 * The model's calls go to the spend ledger.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { MemdPaths } from '../../shared/paths.js';
import type { SessionSummary } from '../../shared/protocol/sessions.js';
import { priceFor } from '../../shared/transcript/models.js';
import type { Bus } from '../bus/bus.js';
import type { ExtractionService } from '../extraction/service.js';
import type { ModelAccess } from '../llm/backends.js';
import { createSpendBook } from '../llm/spend.js';
import type { Logger } from '../log/logger.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createAnthropicCompactionSummarizer } from './anthropic-summary.js';
import { createLayers } from './layers.js';
import { createOfflineCompactionSummarizer } from './offline-summary.js';
import { type CompactionService, createCompactionService } from './service.js';

export interface CompactionPartDeps {
  db: Database.Database;
  paths: Pick<MemdPaths, 'projectsDir'>;
  config: Pick<MemdConfig, 'model' | 'microCompact'>;
  bus: Bus;
  log: Logger;
  clock: () => number;
  access: ModelAccess | null;
  transcripts: Transcripts;
  extraction: Pick<ExtractionService, 'lastSummarizedUuid'>;
  sessions: { get(sessionId: string): SessionSummary };
}

export function buildCompaction(deps: CompactionPartDeps): CompactionService {
  const { config, extraction, sessions } = deps;
  // The model's calls spend on the user's key: the ledger extraction's spend is in (issue 32).
  const spend = createSpendBook(deps.db);
  const modelSummarizer =
    deps.access &&
    createAnthropicCompactionSummarizer({
      ...deps.access,
      model: config.model,
      record: (call) => spend.record(call, deps.clock()),
    });
  const offlineSummarizer = createOfflineCompactionSummarizer();
  return createCompactionService({
    transcripts: deps.transcripts,
    bus: deps.bus,
    log: deps.log,
    clock: deps.clock,
    layers: createLayers({
      projectsDir: deps.paths.projectsDir,
      summarizer: modelSummarizer ?? offlineSummarizer,
      // A model's fragment of a summary is replaced by the offline one, rebuilt from the transcript.
      ...(modelSummarizer === null ? {} : { fallbackSummarizer: offlineSummarizer }),
      microCompact: config.microCompact,
      lastSummarizedUuid: (sessionId) => extraction.lastSummarizedUuid(sessionId),
    }),
    thresholds: (sessionId) => sessions.get(sessionId).threshold,
    price: (sessionId) => priceFor(sessions.get(sessionId).model),
  });
}
