/** Export as a part of the daemon: every byte an export reads comes through openTranscript, so that the archive can stand in for a deleted transcript. */
import type { SessionSummary } from '../../shared/protocol/sessions.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import type { Logger } from '../log/logger.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import type { ReportDeps } from './report.js';
import { createExportService, type ExportService } from './service.js';
import { openMainTranscript } from './source.js';

export interface ExportPartDeps {
  log: Logger;
  thresholdEnv: ThresholdEnv;
  transcripts: Transcripts;
  sessions: { get(sessionId: string): SessionSummary };
  /** The recorded compactions' survival scores, for the report's chart (issue 32). */
  compactionScores?: ReportDeps['compactionScores'];
}

export function buildExport(deps: ExportPartDeps): ExportService {
  const { transcripts, sessions } = deps;
  return createExportService({
    transcripts,
    summary: (sessionId) => sessions.get(sessionId),
    env: deps.thresholdEnv,
    openTranscript: openMainTranscript(transcripts),
    log: deps.log,
    ...(deps.compactionScores === undefined ? {} : { compactionScores: deps.compactionScores }),
  });
}
