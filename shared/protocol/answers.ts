/**
 * The result schemas by method: what a client may check a daemon's answer against
 * (`parseAnswer`). Each pair is typed, so that a schema cannot drift from its method's result type.
 * Methods not listed have no schema yet; their answers are typed by cast only.
 */
import { archiveDeletedResultSchema } from './archive.js';
import { compactionResultSchema } from './compaction.js';
import { daemonStatusSchema, versionInfoSchema } from './daemon.js';
import { usageStatusResultSchema } from './forecast.js';
import { handoffResultSchema } from './handoff.js';
import { memdirConflictsResultSchema } from './memdir.js';
import { memorySummaryResultSchema } from './memory.js';
import { type MethodDescriptor, Methods } from './methods.js';
import { recallResultSchema } from './recall.js';
import type { Schema } from './schema.js';
import { searchContextResultSchema, searchQueryResultSchema } from './search.js';
import { sessionListSchema, sessionSummarySchema, thresholdResultSchema } from './sessions.js';
import { syncStatusSchema } from './sync.js';
import { usageReportResultSchema } from './usage.js';

const answer = <P, R>(descriptor: MethodDescriptor<P, R>, schema: Schema<R>): [string, Schema<unknown>] => [
  descriptor.name,
  schema,
];

export const ANSWER_SCHEMAS: ReadonlyMap<string, Schema<unknown>> = new Map([
  answer(Methods.daemonVersion, versionInfoSchema),
  answer(Methods.daemonStatus, daemonStatusSchema),
  answer(Methods.sessionsList, sessionListSchema),
  answer(Methods.sessionsGet, sessionSummarySchema),
  answer(Methods.compactThresholds, thresholdResultSchema),
  answer(Methods.compactMicro, compactionResultSchema),
  answer(Methods.compactCacheEdits, compactionResultSchema),
  answer(Methods.compactAuto, compactionResultSchema),
  answer(Methods.compactReactive, compactionResultSchema),
  answer(Methods.memorySummary, memorySummaryResultSchema),
  answer(Methods.memoryExtract, memorySummaryResultSchema),
  answer(Methods.handoffGenerate, handoffResultSchema),
  answer(Methods.searchQuery, searchQueryResultSchema),
  answer(Methods.searchContext, searchContextResultSchema),
  answer(Methods.recallForPrompt, recallResultSchema),
  answer(Methods.recallForFailure, recallResultSchema),
  answer(Methods.usageReport, usageReportResultSchema),
  answer(Methods.usageStatus, usageStatusResultSchema),
  answer(Methods.archiveDeleted, archiveDeletedResultSchema),
  answer(Methods.syncStatus, syncStatusSchema),
  answer(Methods.memdirConflicts, memdirConflictsResultSchema),
]);
