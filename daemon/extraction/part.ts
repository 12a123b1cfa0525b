/**
 * Extraction as a part of the daemon: the service with its locks, its summarizer (the model's
 * when there is access, else the offline one) and the trigger figures the sessions' aggregates
 * hold. What changes a session's memory is told on the domain bus, for the parts built later.
 */
import type { MemdConfig } from '../../shared/config.js';
import type { MemdPaths } from '../../shared/paths.js';
import { accountingOf } from '../../shared/transcript/aggregate.js';
import { priceFor } from '../../shared/transcript/models.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import type { Bus } from '../bus/bus.js';
import type { DomainBus } from '../bus/domain-events.js';
import type { ModelAccess } from '../llm/backends.js';
import type { Logger } from '../log/logger.js';
import type { AggregateStore } from '../sessions/aggregates.js';
import type { SessionWindows } from '../sessions/windows.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createAnthropicMemorySummarizer } from './anthropic-extractor.js';
import { createExtractor } from './extract.js';
import { asLastExtraction, type JobStore } from './jobs.js';
import { createMemoryLocks } from './lock.js';
import { createExtractionService, type ExtractionService } from './service.js';
import { hasAllSections } from './template.js';

export interface ExtractionPartDeps {
  paths: Pick<MemdPaths, 'projectsDir' | 'claudeRoot'>;
  config: Pick<MemdConfig, 'model' | 'backfillExtractions' | 'extractionDailyBudgetUsd'>;
  bus: Bus;
  events: DomainBus;
  log: Logger;
  clock: () => number;
  access: ModelAccess | null;
  thresholdEnv: ThresholdEnv;
  transcripts: Transcripts;
  jobs: JobStore;
  aggregates: Pick<AggregateStore, 'read' | 'activity'>;
  windows: Pick<SessionWindows, 'forSession'>;
}

/** The last extraction of each session as the aggregates count from it (built before the service: ingest keeps them). */
export function lastExtractionOf(jobs: Pick<JobStore, 'lastExtraction'>) {
  return (sessionId: string) => {
    const record = jobs.lastExtraction(sessionId);
    return record === null ? null : asLastExtraction(record);
  };
}

export function buildExtraction(deps: ExtractionPartDeps): ExtractionService {
  const { paths, config, aggregates, windows, events } = deps;
  const anthropic =
    deps.access && createAnthropicMemorySummarizer({ ...deps.access, model: config.model, validate: hasAllSections });
  return createExtractionService({
    transcripts: deps.transcripts,
    projectsDir: paths.projectsDir,
    claudeRoot: paths.claudeRoot,
    bus: deps.bus,
    log: deps.log,
    clock: deps.clock,
    jobs: deps.jobs,
    locks: createMemoryLocks({ log: deps.log }),
    price: (model) => priceFor(model),
    triggerFigures: (sessionId) => {
      const counted = aggregates.read(sessionId);
      return counted === undefined || counted.entries.main === 0
        ? null
        : accountingOf(counted, deps.thresholdEnv, null, windows.forSession(sessionId));
    },
    sessionActivity: () => aggregates.activity(),
    extractor: createExtractor(anthropic),
    onExtracted: (sessionId) => events.publish('extraction.done', { sessionId }),
    backfillExtractions: config.backfillExtractions,
    dailyBudgetUsd: config.extractionDailyBudgetUsd,
    onMemoryStateChanged: (sessionId) => events.publish('extraction.memoryStateChanged', { sessionId }),
  });
}
