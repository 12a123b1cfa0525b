/**
 * The compaction layers bound to this daemon: where tool results and session memory live, which
 * summarizer writes summaries, and the micro-compaction settings.
 */

import { sessionSummaryPath, toolResultsDir } from '../../shared/paths.js';
import { readTextIfPresent } from '../fs/read.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import { planMicro } from './micro.js';
import type { CompactionLayers } from './service.js';
import { sessionMemoryCompaction } from './session-memory.js';
import type { CompactionSummarizer } from './summary.js';
import { summaryCompaction } from './summary.js';
import { persistToolResults } from './tool-results.js';

export interface LayerSettings {
  projectsDir: string;
  summarizer: CompactionSummarizer;
  /** Rebuilds the summary when `summarizer`'s is implausibly short; none when it is the offline one already. */
  fallbackSummarizer?: CompactionSummarizer;
  /** `time`: clear old tool results after 60 idle minutes instead of by savings. */
  microCompact: 'savings' | 'time';
  /** The uuid the last session-memory extraction covered, once extraction records it. */
  lastSummarizedUuid?(sessionId: string): string | null;
}

export function createLayers(settings: LayerSettings): CompactionLayers {
  const { projectsDir, fallbackSummarizer: fallback } = settings;
  const projectOf = (conversation: SessionConversation) => conversation.file.project;
  return {
    async micro(conversation, now) {
      const dir = toolResultsDir(projectsDir, projectOf(conversation), conversation.sessionId);
      const plan = planMicro(conversation.messages, conversation.loaded, {
        now,
        toolResultsDir: dir,
        timeBased: settings.microCompact === 'time',
      });
      await persistToolResults(projectsDir, projectOf(conversation), conversation.sessionId, plan.persist);
      return { messages: plan.messages, actions: plan.actions };
    },
    async sessionMemory(conversation) {
      const memory = await readTextIfPresent(
        sessionSummaryPath(projectsDir, projectOf(conversation), conversation.sessionId),
      );
      return sessionMemoryCompaction(conversation.messages, {
        memory,
        lastSummarizedUuid: settings.lastSummarizedUuid?.(conversation.sessionId) ?? null,
        transcriptPath: conversation.file.path,
      });
    },
    summary: (conversation, instructions, signal) =>
      summaryCompaction(conversation, settings.summarizer, instructions, signal),
    ...(fallback === undefined
      ? {}
      : {
          fallbackSummary: (conversation, instructions, signal) =>
            summaryCompaction(conversation, fallback, instructions, signal),
        }),
  };
}
