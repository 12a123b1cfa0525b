/**
 * A session's report model (shared/export/model.ts): its figures from the index and its
 * conversation read back from the transcript, line by line, through the export's source.
 */
import type { ContextChart, ReportModel } from '../../shared/export/model.js';
import type { Survival } from '../../shared/protocol/compaction.js';
import type { SessionFigures } from '../../shared/protocol/sessions.js';
import { computeSessionAccounting } from '../../shared/transcript/accounting.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { conversationChain, leftOutMessages } from './chain.js';
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
  /** The recorded compactions with their survival scores (handoff.status: past ones scored first), for the chart's marks (issue 32). */
  compactionScores?: (sessionId: string) => Promise<readonly { recordedAt: string; survival: Survival | null }[]>;
}

/** A compaction is recorded within this long of its boundary's timestamp (at ingest or PostCompact). */
const SCORE_MATCH_MS = 5 * 60_000;

/** Each mark with the score recorded nearest its boundary, within SCORE_MATCH_MS (compactions can be seconds apart). */
function withScores(
  chart: ContextChart,
  scores: readonly { recordedAt: string; survival: Survival | null }[],
): ContextChart {
  const compactions = chart.compactions.map((mark) => {
    const at = mark.at === null ? Number.NaN : Date.parse(mark.at);
    const gap = (score: { recordedAt: string }) => Math.abs(Date.parse(score.recordedAt) - at);
    const found = scores
      .filter((score) => score.survival !== null && gap(score) <= SCORE_MATCH_MS)
      .sort((a, b) => gap(a) - gap(b))[0]?.survival;
    return found === undefined || found === null
      ? mark
      : { ...mark, kept: { kept: found.kept, total: found.kept + found.lost } };
  });
  return { ...chart, compactions };
}

/**
 * Lets the daemon's other requests run between the steps of a report: on an 80 MB session each
 * step takes 50-300 ms of the event loop (the first load of the session's entries is the read
 * model's, in slices, as for a compaction).
 */
export const nextTurn = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) =>
    setImmediate(() => {
      if (signal.aborted) reject(signal.reason);
      else resolve();
    }),
  );

export async function buildReport(
  deps: ReportDeps,
  source: TranscriptBytes,
  sessionId: string,
  signal: AbortSignal,
): Promise<ReportModel> {
  const summary = deps.summary(sessionId);
  const { main, sidechain, compaction } = await deps.transcripts.sessionEntries(sessionId, signal);
  await nextTurn(signal);
  const accounting = computeSessionAccounting(main, sidechain, { env: deps.env, compactionEntries: compaction });
  const { threshold } = summary;
  await nextTurn(signal);
  const chain = conversationChain(main);
  await nextTurn(signal);
  const builder = createConversationBuilder(deps.limits ?? REPORT_LIMITS);
  await readEntries(source, chain, builder.add, signal);
  const body = builder.finish();
  body.conversation.offBranchMessages = leftOutMessages(main, chain);
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
    chart: withScores(
      contextChart(
        main,
        threshold.autoCompactEnabled ? threshold.autoCompactAt : null,
        threshold.window,
        threshold.autoCompactMode,
      ),
      (await deps.compactionScores?.(sessionId)) ?? [],
    ),
    costs: reportCosts(accounting.byModel, accounting.usage.total),
    ...body,
  };
}
