/**
 * The compaction methods over sessions: loads a session's active conversation, runs one layer,
 * and returns a CompactionResult (messages ready to send, what was done, what was lost). Nothing
 * is written to transcripts. Auto-compaction also runs by itself when a session crosses its
 * auto-compact threshold, and publishes `compaction.ready`; three failures in a row stop that
 * for the session (a circuit breaker) until a compaction of it succeeds again.
 *
 * A summary implausibly short for its conversation (compact-summary.ts: a fragment, such as one
 * quoted line) is never returned: session memory is tried first anyway, so the fallback is the
 * offline summary rebuilt from the transcript. The fragment still counts as a failure in the
 * breaker, and the result says it fell back.
 *
 * The result every method returns is result.ts's, the refusals of a compaction that would not help
 * refusals.ts's, and the shared runs of auto-compaction with their breaker auto-runs.ts's.
 */

import type {
  CompactionAction,
  CompactionResult,
  CompactionStatus,
  ReactiveEstimate,
} from '../../shared/protocol/compaction.js';
import { type BelowThresholdData, ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { ThresholdResult, ThresholdState } from '../../shared/protocol/sessions.js';
import type { ModelPrice } from '../../shared/transcript/models.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import { type ConversationMessage, estimateMessageTokens } from '../transcripts/messages.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createAutoRuns } from './auto-runs.js';
import { planCacheEdits } from './cache-edits.js';
import { requestModel } from './calibration.js';
import { reactiveCompaction } from './reactive.js';
import { refuseGrowth, requireMessages, shrinks } from './refusals.js';
import { compactionResult, contextFigures, summarized } from './result.js';

/** The layers that live in their own modules, bound to this daemon's paths and settings. */
export interface CompactionLayers {
  /** Persists what it moves out of the messages before it returns. */
  micro(
    conversation: SessionConversation,
    now: number,
  ): Promise<{ messages: ConversationMessage[]; actions: CompactionAction[] }>;
  /** Null when the session has no session memory worth compacting with. */
  sessionMemory(
    conversation: SessionConversation,
  ): Promise<{ messages: ConversationMessage[]; summary: string; keptFromUuid: string | null } | null>;
  summary(
    conversation: SessionConversation,
    instructions: string | undefined,
    signal: AbortSignal,
  ): Promise<SummaryLayerResult>;
  /** The offline summary, when `summary` is another summarizer's: used when that one's is implausible. */
  fallbackSummary?(
    conversation: SessionConversation,
    instructions: string | undefined,
    signal: AbortSignal,
  ): Promise<SummaryLayerResult>;
}

export interface SummaryLayerResult {
  messages: ConversationMessage[];
  summary: string;
}

/** The summary layer's refusal of a fragment (compact-summary.ts). */
function isImplausible(error: unknown): error is RpcError {
  return error instanceof RpcError && error.kind === 'ImplausibleSummary';
}

export interface CompactionServiceDeps {
  transcripts: Transcripts;
  bus: Bus;
  log: Logger;
  clock: () => number;
  layers: CompactionLayers;
  /** The session's threshold state now (the sessions service computes it). */
  thresholds(sessionId: string): ThresholdResult;
  price(sessionId: string): ModelPrice | null;
}

export interface CompactionService {
  /** `signal`: the request's; the session's first load stops between slices when it aborts. */
  micro(sessionId: string, signal?: AbortSignal): Promise<CompactionResult>;
  cacheEdits(sessionId: string, keep?: number, signal?: AbortSignal): Promise<CompactionResult>;
  /**
   * `signal`: the request's. A run is shared by everyone who asks for the session meanwhile; it
   * stops (the model call with it) once every caller that can cancel has, and none that cannot waits.
   */
  auto(
    sessionId: string,
    options: { force?: boolean | undefined; instructions?: string | undefined },
    signal?: AbortSignal,
  ): Promise<CompactionResult>;
  reactive(sessionId: string, limitTokens?: number, signal?: AbortSignal): Promise<CompactionResult>;
  conversation(sessionId: string, signal?: AbortSignal): Promise<SessionConversation>;
  /** Called on every threshold crossing: compacts a session that reached auto-compaction. */
  onThresholdCrossed(sessionId: string, to: ThresholdState): void;
  status(): CompactionStatus;
  close(): void;
}

const AUTO_STATES: ReadonlySet<ThresholdState> = new Set(['autocompact', 'blocking']);

export function createCompactionService(deps: CompactionServiceDeps): CompactionService {
  const { transcripts, bus, log, clock, layers } = deps;
  let autoRuns = 0;
  let closed = false;

  const load = (sessionId: string, signal?: AbortSignal) => transcripts.conversation(sessionId, signal);

  /** The compaction, and why the configured summarizer's summary was not used (null when it was). */
  async function runAuto(
    sessionId: string,
    instructions: string | undefined,
    signal: AbortSignal,
  ): Promise<{ done: CompactionResult; failure: string | null }> {
    const conversation = await load(sessionId, signal);
    requireMessages(conversation, 'auto');
    const outcome = await compactAuto(conversation, instructions, signal);
    refuseGrowth(conversation, outcome.done);
    return outcome;
  }

  async function compactAuto(
    conversation: SessionConversation,
    instructions: string | undefined,
    signal: AbortSignal,
  ): Promise<{ done: CompactionResult; failure: string | null }> {
    const { sessionId } = conversation;
    const memory = await layers.sessionMemory(conversation);
    if (memory !== null) {
      const done = compactionResult(conversation, 'session-memory', memory.messages, {
        summary: memory.summary,
        keptFromUuid: memory.keptFromUuid,
        actions: [summarized(conversation, memory.summary)],
      });
      // Session memory keeps 10,000 tokens of recent messages: on a short conversation that is all
      // of it, plus the memory. The summary replaces everything, so it may still help.
      if (shrinks(conversation, done)) return { done, failure: null };
      log.info('session memory would not shrink the conversation; summarizing instead', {
        sessionId,
        preTokens: done.preTokens,
        postTokens: done.postTokens,
      });
    }
    const summaryResult = (summary: SummaryLayerResult, extra: Partial<CompactionResult> = {}) =>
      compactionResult(conversation, 'summary', summary.messages, {
        summary: summary.summary,
        actions: [summarized(conversation, summary.summary)],
        ...extra,
      });
    try {
      return { done: summaryResult(await layers.summary(conversation, instructions, signal)), failure: null };
    } catch (error) {
      if (!isImplausible(error) || layers.fallbackSummary === undefined) throw error;
      log.warn('implausible summary; falling back to the offline summary', { sessionId, error: error.message });
      const rebuilt = await layers.fallbackSummary(conversation, instructions, signal);
      return {
        done: summaryResult(rebuilt, { fallback: { from: 'summary', reason: error.message } }),
        failure: error.message,
      };
    }
  }

  const runs = createAutoRuns(runAuto, log);

  return {
    conversation: load,
    async micro(sessionId, signal) {
      const conversation = await load(sessionId, signal);
      requireMessages(conversation, 'micro');
      const done = await layers.micro(conversation, clock());
      return compactionResult(conversation, 'micro', done.messages, { actions: done.actions });
    },
    async cacheEdits(sessionId, keep, signal) {
      const conversation = await load(sessionId, signal);
      requireMessages(conversation, 'cache-edits');
      const plan = planCacheEdits(conversation.messages, {
        keep,
        triggerTokens: deps.thresholds(sessionId).autoCompactAt,
        price: deps.price(sessionId),
      });
      const base = compactionResult(conversation, 'cache-edits', conversation.messages);
      const whole = estimateMessageTokens(base.messages);
      // The messages stay as they are (so the cached prefix matches); the API clears on its side.
      return {
        ...base,
        ...contextFigures(conversation, whole, whole - plan.freedTokens),
        actions: plan.clear.map((item) => ({
          kind: 'cleared' as const,
          id: item.toolUseId,
          tool: item.tool,
          tokensBefore: item.tokens,
          tokensAfter: 0,
        })),
        lost: { userMessages: [], filePaths: [], identifiers: [], errors: [] },
        cacheEdits: {
          freedTokens: plan.freedTokens,
          withCacheEdits: plan.withCacheEdits,
          withPlainClearing: plan.withPlainClearing,
          savedUsd: plan.savedUsd,
        },
        contextManagement: plan.contextManagement,
      };
    },
    async reactive(sessionId, limitTokens, signal) {
      const limit = limitTokens ?? deps.thresholds(sessionId).autoCompactAt;
      const conversation = await load(sessionId, signal);
      requireMessages(conversation, 'reactive');
      const { margin, measured, overhead } = requestModel(
        conversation.messages,
        conversation.loaded,
        conversation.active.boundary?.offset ?? -1,
      );
      const done = reactiveCompaction(conversation.messages, limit, { margin, overheadTokens: overhead, sessionId });
      const estimate: ReactiveEstimate = {
        tokens: done.tokens,
        messageTokens: done.messageTokens,
        overheadTokens: overhead,
        margin,
        measuredRatio: measured,
      };
      return compactionResult(conversation, 'reactive', done.messages, {
        actions: done.actions,
        limitTokens: limit,
        overheadTokens: overhead,
        estimate,
      });
    },
    async auto(sessionId, options, signal) {
      if (!options.force) {
        const threshold = deps.thresholds(sessionId);
        if (!AUTO_STATES.has(threshold.state)) {
          // In reactive mode Claude Code compacts only once the API refuses: autoCompactAt is the window.
          const below =
            threshold.autoCompactMode === 'reactive' && threshold.autoCompactEnabled
              ? `below its window of ${threshold.window}, where Claude Code compacts when the API refuses the request`
              : `below its auto-compact threshold of ${threshold.autoCompactAt}`;
          throw new RpcError(
            ErrorCode.Conflict,
            'BelowThreshold',
            `session ${sessionId} is at ${threshold.tokens} tokens, ${below}; pass force to compact anyway`,
            {
              tokens: threshold.tokens,
              autoCompactAt: threshold.autoCompactAt,
              window: threshold.window,
              autoCompactMode: threshold.autoCompactMode,
            } satisfies BelowThresholdData,
          );
        }
      }
      return runs.join(sessionId, options.instructions, signal);
    },
    onThresholdCrossed(sessionId, to) {
      if (closed || !AUTO_STATES.has(to) || runs.stopped(sessionId)) return;
      autoRuns += 1;
      runs.join(sessionId, undefined).then(
        (done) =>
          bus.publish('compaction.ready', {
            sessionId,
            method: done.method,
            preTokens: done.preTokens,
            postTokens: done.postTokens,
            keptFromUuid: done.keptFromUuid,
            lost: {
              userMessages: done.lost.userMessages.length,
              filePaths: done.lost.filePaths.length,
              identifiers: done.lost.identifiers.length,
              errors: done.lost.errors.length,
            },
            // What a client shows of it (issue 32): the score and what was lost, not the kept items.
            ...(done.survival === undefined
              ? {}
              : {
                  survival: {
                    kept: done.survival.kept,
                    lost: done.survival.lost,
                    items: done.survival.items.filter((item) => !item.kept),
                  },
                }),
          }),
        (error: unknown) => {
          if (error instanceof RpcError && error.kind === 'NothingToCompact')
            log.info('nothing to auto-compact', { sessionId, ...error.data });
          else log.warn('auto-compaction failed', { sessionId, error, failures: runs.failures(sessionId) });
        },
      );
    },
    status() {
      return { autoRuns, failing: runs.failing() };
    },
    close() {
      closed = true;
      runs.abortAll();
    },
  };
}
