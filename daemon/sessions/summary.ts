/** A session's summary, computed from the index: its files and their entries, never the transcripts. */
import type { SessionSummary } from '../../shared/protocol/results.js';
import { computeSessionAccounting, type LastExtraction } from '../../shared/transcript/accounting.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import { isCompactionAgent } from '../ingest/layout.js';
import type { Transcripts } from '../transcripts/transcripts.js';

/** `lastExtraction`: where the session's last memory extraction left off (sinceExtraction counts from it). */
export function summarizeSession(transcripts: Transcripts, sessionId: string, env: ThresholdEnv, lastExtraction: LastExtraction | null = null): SessionSummary | undefined {
  // One read transaction, so that the files and their entries are of the same moment.
  return transcripts.consistent(() => {
    const { files, main: mainEntries, sidechain, compaction } = transcripts.sessionEntries(sessionId);
    if (files.length === 0) return undefined;
    const main = files.find((file) => file.agentId === null);
    const project = main?.project ?? files[0]?.project ?? '';
    const accounting = computeSessionAccounting(mainEntries, sidechain, { env, lastExtraction, leafTitles: transcripts.leafTitles(project), compactionEntries: compaction });
    const agents = files.filter((file) => file.agentId !== null);
    const compactionFiles = agents.filter((file) => isCompactionAgent(file.agentId)).length;
    return {
      sessionId,
      project,
      cwd: accounting.cwd,
      gitBranch: accounting.gitBranch,
      title: accounting.title,
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
    };
  });
}
