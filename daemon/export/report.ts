/**
 * A session's report model (shared/export/model.ts): its figures from the index and its
 * conversation read back from the transcript, line by line, through the export's source.
 */
import type { ReportModel } from '../../shared/export/model.js';
import type { SessionFigures } from '../../shared/protocol/results.js';
import { computeSessionAccounting } from '../../shared/transcript/accounting.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { conversationChain } from './chain.js';
import { createConversationBuilder, REPORT_LIMITS, type ReportLimits } from './conversation.js';
import { contextChart, reportCosts } from './figures.js';
import { readEntries, type TranscriptBytes } from './source.js';

export interface ReportDeps {
  transcripts: Transcripts;
  /** The session as sessions.get answers (title, project, thresholds): the report says what memctl says. */
  summary(sessionId: string): SessionFigures;
  /** Claude Code's overrides as the daemon sees them, for the accounting by model. */
  env: ThresholdEnv;
  limits?: ReportLimits;
}

export async function buildReport(deps: ReportDeps, source: TranscriptBytes, sessionId: string, signal: AbortSignal): Promise<ReportModel> {
  const summary = deps.summary(sessionId);
  const { main, sidechain, compaction } = deps.transcripts.sessionEntries(sessionId);
  const accounting = computeSessionAccounting(main, sidechain, { env: deps.env, compactionEntries: compaction });
  const { threshold } = summary;
  const builder = createConversationBuilder(deps.limits ?? REPORT_LIMITS);
  await readEntries(source, conversationChain(main), builder.add, signal);
  return {
    session: {
      sessionId: summary.sessionId,
      title: summary.title,
      project: summary.project,
      cwd: summary.cwd,
      gitBranch: summary.gitBranch,
      model: summary.model,
      firstActivity: summary.firstActivity,
      lastActivity: summary.lastActivity,
    },
    chart: contextChart(main, threshold.autoCompactEnabled ? threshold.autoCompactAt : null, threshold.window),
    costs: reportCosts(accounting.byModel, accounting.usage.total),
    ...builder.finish(),
  };
}
