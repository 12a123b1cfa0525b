/**
 * A session's summary: its persisted aggregate (aggregates.ts) and its files' rows, never its
 * entries. `summaryOf` is also how a summary is built from figures computed from scratch.
 */
import type { SessionFigures } from '../../shared/protocol/sessions.js';
import { redactSecrets } from '../../shared/text/redact.js';
import { type AggregateAccounting, accountingOf } from '../../shared/transcript/aggregate.js';
import { isCompactionAgent } from '../../shared/transcript/layout.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import type { IngestedFile } from '../store/rows.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import type { AggregateStore } from './aggregates.js';

/** The summary of a session with these files (main transcript first) and these figures. */
export function summaryOf(
  sessionId: string,
  files: readonly IngestedFile[],
  accounting: AggregateAccounting,
): SessionFigures {
  const main = files.find((file) => file.agentId === null);
  const agents = files.filter((file) => file.agentId !== null);
  const compactionFiles = agents.filter((file) => isCompactionAgent(file.agentId)).length;
  return {
    sessionId,
    project: main?.project ?? files[0]?.project ?? '',
    cwd: accounting.cwd,
    gitBranch: accounting.gitBranch,
    // Redacted on the way out too: databases of older versions hold titles stored raw (issue 27).
    title: accounting.title === null ? null : redactSecrets(accounting.title),
    model: accounting.model,
    firstActivity: accounting.firstActivity,
    lastActivity: accounting.lastActivity,
    gone: main?.gone ?? false,
    hasMainTranscript: main !== undefined,
    contextTokens: accounting.contextTokens,
    threshold: accounting.threshold,
    usage: accounting.usage,
    compactions: accounting.compactions,
    sinceExtraction: accounting.sinceExtraction,
    entries: accounting.entries.main + accounting.entries.sidechain + accounting.entries.compaction,
    sidechainFiles: agents.length - compactionFiles,
    compactionFiles,
    badLines: files.reduce((sum, file) => sum + file.badLines, 0),
    badTimestamps: files.reduce((sum, file) => sum + file.badTimestamps, 0),
  };
}

/** `statedWindow`: the window Claude Code stated for the session (windows.ts), null when it never did. */
export function summarizeSession(
  transcripts: Transcripts,
  aggregates: AggregateStore,
  sessionId: string,
  env: ThresholdEnv,
  statedWindow: number | null = null,
): SessionFigures | undefined {
  // One read transaction, so that the files and the aggregate are of the same moment.
  return transcripts.consistent(() => {
    const files = transcripts.files(sessionId);
    if (files.length === 0) return undefined;
    const state = aggregates.read(sessionId);
    if (state === undefined) return undefined;
    const main = files.find((file) => file.agentId === null);
    const named = state.titles.custom !== null || state.titles.ai !== null;
    const summaryTitle = named || main === undefined ? null : transcripts.summaryTitle(main.project, main.id);
    return summaryOf(sessionId, files, accountingOf(state, env, summaryTitle, statedWindow));
  });
}
