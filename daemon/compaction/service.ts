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
 */

import type {
  CompactionAction,
  CompactionMethod,
  CompactionResult,
  CompactionStatus,
  ReactiveEstimate,
} from '../../shared/protocol/compaction.js';
import { type BelowThresholdData, ErrorCode, NOT_ENOUGH_MESSAGES, RpcError } from '../../shared/protocol/errors.js';
import type { ThresholdResult, ThresholdState } from '../../shared/protocol/sessions.js';
import { computeSessionAccounting } from '../../shared/transcript/accounting.js';
import type { ModelPrice } from '../../shared/transcript/models.js';
import { DEFAULT_ESTIMATE_MARGIN } from '../../shared/transcript/tokens.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import { type ConversationMessage, estimateMessageTokens, toMessageParams } from '../transcripts/messages.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { planCacheEdits } from './cache-edits.js';
import { requestModel, requestOverhead } from './calibration.js';
import { lostItems } from './lost.js';
import { reactiveCompaction } from './reactive.js';

/**
 * `preTokens` is the session's context as sessions.get counts it (the last response's usage plus
 * the estimate of what followed), so a compaction, the context bar and the thresholds show one
 * figure. `postTokens` takes away what the layer freed, measured in the JSON-length estimate and
 * scaled by DEFAULT_ESTIMATE_MARGIN into the same tokens (what the estimate undercounts).
 */
function contextFigures(
  conversation: SessionConversation,
  before: number,
  after: number,
): { preTokens: number; postTokens: number } {
  const preTokens = computeSessionAccounting(conversation.entries, [], { env: {} }).contextTokens;
  const moved = Math.round(preTokens - (before - after) * DEFAULT_ESTIMATE_MARGIN);
  if (after >= before) return { preTokens, postTokens: moved };
  const messagesAfter = Math.ceil(after * DEFAULT_ESTIMATE_MARGIN);
  if (moved >= messagesAfter) return { preTokens, postTokens: moved };
  // "Freed" exceeded what the context held: tool results Claude Code had already cleared from its
  // context are whole in memd's messages. The next request carries the messages left and the
  // system prompt and tools, measured from the session's first response.
  return {
    preTokens,
    postTokens: Math.min(preTokens, messagesAfter + requestOverhead(conversation.messages, conversation.loaded)),
  };
}

/** A compaction that would not help: Claude Code's words, then memd's figures (errors.ts). */
function nothingToCompact(sessionId: string, why: string, data: Record<string, unknown>): RpcError {
  return new RpcError(
    ErrorCode.Conflict,
    'NothingToCompact',
    `${NOT_ENOUGH_MESSAGES} Session ${sessionId} ${why}; nothing was changed`,
    { sessionId, ...data },
  );
}

/**
 * Every method refuses a conversation with no message to send: the Messages API takes no empty
 * `messages`. The loaders bridge a broken parent chain (conversation.ts), so this is a transcript
 * with no prompt at all, or only bookkeeping.
 */
function requireMessages(conversation: SessionConversation, method: CompactionMethod | 'auto'): void {
  if (conversation.messages.length > 0) return;
  const entries = conversation.active.entries.length;
  const why =
    entries === 0
      ? 'has no message to send: its transcript holds no conversation entry'
      : `has no message to send: its active conversation (${entries} entr${entries === 1 ? 'y' : 'ies'}) has no user message before its replies (a trimmed or partly written transcript)`;
  throw nothingToCompact(conversation.sessionId, why, {
    method,
    messages: 0,
    messageTokens: 0,
    preTokens: computeSessionAccounting(conversation.entries, [], { env: {} }).contextTokens,
  });
}

const count = (tokens: number): string => tokens.toLocaleString('en-US');

/** Whether a compaction's messages are smaller than the conversation's, in the one estimate. */
function shrinks(conversation: SessionConversation, done: CompactionResult): boolean {
  return estimateMessageTokens(done.messages) < estimateMessageTokens(toMessageParams(conversation.messages));
}

/**
 * A summary at least as large as the conversation it replaces would grow the context: refused, as
 * the conversation is already as small as compaction would make it.
 */
function refuseGrowth(conversation: SessionConversation, done: CompactionResult): void {
  if (shrinks(conversation, done)) return;
  const messageTokens = estimateMessageTokens(toMessageParams(conversation.messages));
  const summaryTokens = estimateMessageTokens(done.messages);
  throw nothingToCompact(
    conversation.sessionId,
    `holds ${conversation.messages.length} message${conversation.messages.length === 1 ? '' : 's'} of ${count(messageTokens)} tokens; a ${done.method} compaction would make them ${count(summaryTokens)} (context ${count(done.preTokens)} → ${count(done.postTokens)} tokens)`,
    {
      method: done.method,
      messages: conversation.messages.length,
      messageTokens,
      summaryTokens,
      preTokens: done.preTokens,
      postTokens: done.postTokens,
    },
  );
}

/** Not a failed compaction: the caller's or the session's state, so the breaker does not count it. */
function isCallersCase(error: unknown): boolean {
  return error instanceof RpcError && (error.code === ErrorCode.NotFound || error.kind === 'NothingToCompact');
}

/** DESIGN.md §5: three failed compactions in a row stop auto-compaction for the session. */
export const CIRCUIT_BREAKER_FAILURES = 3;

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

/** The abort reason of a run whose callers all cancelled: no failed compaction, so not one for the breaker. */
const CANCELLED_BY_CALLERS = new Error('the compaction was cancelled by its callers');

/** One auto-compaction of a session and who waits for it. */
interface AutoRun {
  done: Promise<CompactionResult>;
  abort: AbortController;
  /** Callers that wait with a signal and have not cancelled. */
  cancellable: number;
  /** A caller without a signal (the threshold trigger) waits: the run goes on whatever the others do. */
  held: boolean;
}

export function createCompactionService(deps: CompactionServiceDeps): CompactionService {
  const { transcripts, bus, log, clock, layers } = deps;
  const failures = new Map<string, { count: number; lastError: string }>();
  const running = new Map<string, AutoRun>();
  const aborts = new Set<AbortController>();
  let autoRuns = 0;
  let closed = false;

  const load = (sessionId: string, signal?: AbortSignal) => transcripts.conversation(sessionId, signal);

  function result(
    conversation: SessionConversation,
    method: CompactionMethod,
    messages: readonly ConversationMessage[],
    extra: Partial<CompactionResult> = {},
  ): CompactionResult {
    const before = toMessageParams(conversation.messages);
    const after = toMessageParams(messages);
    const boundary = conversation.active.boundary;
    return {
      sessionId: conversation.sessionId,
      method,
      messages: after,
      boundary: boundary?.uuid
        ? {
            uuid: boundary.uuid,
            trigger: boundary.compact?.trigger ?? 'unknown',
            preTokens: boundary.compact?.preTokens ?? null,
          }
        : null,
      summary: null,
      ...contextFigures(conversation, estimateMessageTokens(before), estimateMessageTokens(after)),
      keptFromUuid: null,
      actions: [],
      lost: lostItems(conversation.messages, after, conversation.loaded),
      ...extra,
    };
  }

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
      const done = result(conversation, 'session-memory', memory.messages, {
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
      result(conversation, 'summary', summary.messages, {
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

  function summarized(conversation: SessionConversation, summary: string): CompactionAction {
    return {
      kind: 'summarized',
      id: conversation.messages[0]?.uuids[0] ?? '',
      tokensBefore: estimateMessageTokens(toMessageParams(conversation.messages)),
      tokensAfter: estimateMessageTokens([{ role: 'user', content: summary }]),
    };
  }

  function countFailure(sessionId: string, lastError: string): void {
    failures.set(sessionId, { count: (failures.get(sessionId)?.count ?? 0) + 1, lastError });
  }

  /**
   * One auto-compaction at a time per session; failures feed the breaker, a success resets it. A
   * run its callers all cancelled is neither: it stopped, and the log says so.
   */
  function startAuto(sessionId: string, instructions: string | undefined): AutoRun {
    const abort = new AbortController();
    aborts.add(abort);
    const done = runAuto(sessionId, instructions, abort.signal)
      .then(({ done, failure }) => {
        // A fragment replaced by the fallback still counts: the summarizer failed.
        if (failure === null) failures.delete(sessionId);
        else countFailure(sessionId, failure);
        return done;
      })
      .catch((error: unknown) => {
        if (abort.signal.reason === CANCELLED_BY_CALLERS)
          log.info('auto-compaction cancelled by its callers', { sessionId, error });
        // A session that is not there, or too small to compact, is no failed compaction.
        else if (!isCallersCase(error)) countFailure(sessionId, (error as Error).message);
        throw error;
      })
      .finally(() => {
        aborts.delete(abort);
        running.delete(sessionId);
      });
    return { done, abort, cancellable: 0, held: false };
  }

  function auto(sessionId: string, instructions: string | undefined, signal?: AbortSignal): Promise<CompactionResult> {
    const pending = running.get(sessionId);
    // A run that is stopping cannot be joined: the next one starts once it has.
    if (pending?.abort.signal.aborted) {
      const again = () => auto(sessionId, instructions, signal);
      return pending.done.then(again, again);
    }
    const run = pending ?? startAuto(sessionId, instructions);
    running.set(sessionId, run);
    if (signal === undefined) {
      run.held = true;
      return run.done;
    }
    return followUntilCancelled(run, signal);
  }

  /** The run's outcome for one caller, who stops waiting when its signal aborts; the last to leave stops the run. */
  function followUntilCancelled(run: AutoRun, signal: AbortSignal): Promise<CompactionResult> {
    return new Promise<CompactionResult>((resolve, reject) => {
      const leave = () => {
        run.cancellable -= 1;
        if (run.cancellable === 0 && !run.held) run.abort.abort(CANCELLED_BY_CALLERS);
        reject(new Error('the compaction was cancelled by its caller'));
      };
      run.cancellable += 1;
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      run.done.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
    });
  }

  return {
    conversation: load,
    async micro(sessionId, signal) {
      const conversation = await load(sessionId, signal);
      requireMessages(conversation, 'micro');
      const done = await layers.micro(conversation, clock());
      return result(conversation, 'micro', done.messages, { actions: done.actions });
    },
    async cacheEdits(sessionId, keep, signal) {
      const conversation = await load(sessionId, signal);
      requireMessages(conversation, 'cache-edits');
      const plan = planCacheEdits(conversation.messages, {
        keep,
        triggerTokens: deps.thresholds(sessionId).autoCompactAt,
        price: deps.price(sessionId),
      });
      const base = result(conversation, 'cache-edits', conversation.messages);
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
      return result(conversation, 'reactive', done.messages, {
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
      return auto(sessionId, options.instructions, signal);
    },
    onThresholdCrossed(sessionId, to) {
      if (closed || !AUTO_STATES.has(to)) return;
      const failing = failures.get(sessionId);
      if (failing !== undefined && failing.count >= CIRCUIT_BREAKER_FAILURES) return;
      autoRuns += 1;
      auto(sessionId, undefined).then(
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
          }),
        (error: unknown) => {
          if (error instanceof RpcError && error.kind === 'NothingToCompact')
            log.info('nothing to auto-compact', { sessionId, ...error.data });
          else log.warn('auto-compaction failed', { sessionId, error, failures: failures.get(sessionId)?.count ?? 0 });
        },
      );
    },
    status() {
      return {
        autoRuns,
        failing: [...failures].map(([sessionId, failure]) => ({
          sessionId,
          failures: failure.count,
          stopped: failure.count >= CIRCUIT_BREAKER_FAILURES,
          lastError: failure.lastError,
        })),
      };
    },
    close() {
      closed = true;
      for (const abort of aborts) abort.abort();
    },
  };
}
