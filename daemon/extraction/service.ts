/**
 * Background session-memory extraction: decides from each change of a live session whether its
 * summary is due (triggers.ts), queues a job (jobs.ts, persisted, one per session), and runs jobs
 * up to a concurrency limit. A job loads the conversation, summarizes what is new since the last
 * extraction, and writes `summary.md` atomically under the session-memory lock (a job's run is
 * job-run.ts); when the main agent (or anyone) holds the lock, the job is deferred and retried
 * with backoff. Shutdown aborts
 * running summaries; their jobs run again after the next start. Sessions the backfill read get
 * one extraction at the lowest priority once it is done (backfill.ts); such a job starts only
 * while nobody holds the session's memory lock. A main agent's turn holds that lock (memory.lock,
 * from Claude Code's turn hooks): jobs wait for its end, and its unlock runs them. Background jobs
 * also wait while paused or once the day's spend reached the budget (spend.ts).
 */
import { sessionSummaryPath } from '../../shared/paths.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { ExtractionStatus, MemoryLockResult, MemorySummaryResult } from '../../shared/protocol/memory.js';
import type { SessionMemoryState } from '../../shared/protocol/sessions.js';
import type { ModelPrice } from '../../shared/transcript/models.js';
import type { Bus } from '../bus/bus.js';
import { readTextIfPresent } from '../fs/read.js';
import { NO_TOKENS, nextLocalMidnight } from '../llm/spend.js';
import type { Logger } from '../log/logger.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { type BackfillSession, createBackfillExtractions } from './backfill.js';
import type { Extractor } from './extract.js';
import { BACKFILL_REASON, CANCELLED_BY_CALLERS, createJobRun } from './job-run.js';
import { asLastExtraction, type JobStore, REQUESTED_REASON, retryDelayMs } from './jobs.js';
import type { MemoryLocks } from './lock.js';
import { memoryDirFor, sessionOfMemoryDir } from './memory-dir.js';
import { stripInstructions } from './template.js';
import { shouldExtract, type TriggerFigures, triggerStateOf } from './triggers.js';
import { createExtractionWaiters } from './waiters.js';

/** Extractions at once over all sessions (issue 5 default): summaries compete with the agent for the API. */
export const DEFAULT_CONCURRENCY = 1;
/** A job that failed this often is given up (a summary that always fails must not loop forever). */
export const MAX_ATTEMPTS = 5;
/** The default daily cap on what background extraction spends (config `extractionDailyBudgetUsd`). */
export const DEFAULT_DAILY_BUDGET_USD = 1;
/** Sessions listed with their spend today in daemon.status. */
const SPEND_LIST_LIMIT = 10;

/** What `memory.lock` is given besides the session: a new session's transcript path, and how its TTL runs. */
export interface LockOptions {
  ttlMs?: number;
  /** For a session memd has not indexed yet (a turn's first prompt): its transcript names its project. */
  transcriptPath?: string;
  whileActive?: boolean;
}

export interface ExtractionDeps {
  transcripts: Transcripts;
  projectsDir: string;
  claudeRoot: string;
  bus: Bus;
  log: Logger;
  clock: () => number;
  jobs: JobStore;
  locks: MemoryLocks;
  extractor: Extractor;
  price(model: string | null): ModelPrice | null;
  /**
   * The trigger figures of a session's main transcript as its persisted aggregate has them
   * (counted against the same last extraction), or null when it has no entries: deciding after
   * every commit must cost O(1), not a load of the whole session.
   */
  triggerFigures(sessionId: string): TriggerFigures | null;
  /** Every session's newest entry time, for choosing the backfill's extractions (backfill.ts). */
  sessionActivity(): Iterable<BackfillSession>;
  concurrency?: number;
  /** After an extraction is recorded: the session's sinceExtraction starts again from it. */
  onExtracted?(sessionId: string): void;
  /** Sessions the backfill may extract per daemon run (backfill.ts); default none. */
  backfillExtractions?: number;
  /** Background extraction stops for the day once it has spent this much (requested ones still run). */
  dailyBudgetUsd?: number;
  /** A session's lock was taken or let go (no commit says so): its subscribers get a session.updated. */
  onMemoryStateChanged?(sessionId: string): void;
}

export interface ExtractionService {
  /**
   * Ingest committed new lines of a live session: a `whileActive` hold on its memory is renewed.
   * Called before the session's summary is computed again, so that the summary shows the renewal.
   */
  onSessionActive(sessionId: string): void;
  /** After ingest changed a session (live): queue an extraction when its triggers say so. */
  onSessionChanged(sessionId: string): void;
  /** The backfill changed a session: it is a candidate once the backfill is done. */
  onSessionBackfilled(sessionId: string): void;
  /** The backfill is done: extract the sessions it brought over the threshold, lowest priority. */
  onBackfillDone(): void;
  /**
   * `memory.extract`: queue one now (whatever the triggers say) and wait for it. `signal`: the
   * request's; once no one waits any more, the job a request queued stops (its model call with it).
   */
  extract(sessionId: string, signal?: AbortSignal): Promise<MemorySummaryResult>;
  summary(sessionId: string): Promise<MemorySummaryResult>;
  lock(sessionId: string, owner: string, options?: LockOptions): Promise<MemoryLockResult>;
  unlock(sessionId: string, owner: string, transcriptPath?: string): Promise<{ released: boolean }>;
  /** `memory.pause` / `memory.resume`: background extraction stops (persisted) or starts again. */
  setPaused(paused: boolean): { paused: boolean };
  /** The session's memory for its summary: last extraction, lock holder, spend. */
  memoryState(sessionId: string): SessionMemoryState;
  lastSummarizedUuid(sessionId: string): string | null;
  /** Sessions whose memory lock an agent holds through memd: a main agent in its turn (the turn hooks). */
  agentSessions(): string[];
  status(): ExtractionStatus;
  /** `archive.forget`: a running extraction of the session is stopped and waited for (its job rows go with the session's). */
  cancel(sessionId: string): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

/** A session or transcript that is not there (unknown, deleted mid-run): retrying cannot help. */
function isGone(error: unknown): boolean {
  if (error instanceof RpcError) return error.code === ErrorCode.NotFound;
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

export function createExtractionService(deps: ExtractionDeps): ExtractionService {
  const { transcripts, jobs, locks, log, clock } = deps;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const running = new Map<number, { sessionId: string; reason: string; abort: AbortController; done: Promise<void> }>();
  const waiters = createExtractionWaiters();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const settle = (sessionId: string, error: Error | null) => waiters.settle(sessionId, error);
  const run = createJobRun({
    ...deps,
    settle,
    onWriterChanged: (sessionId) => deps.onMemoryStateChanged?.(sessionId),
  });

  /** No one waits for the session's extraction any more: a job a request queued stops (a background one goes on). */
  function stopRequested(sessionId: string): void {
    for (const job of running.values())
      if (job.sessionId === sessionId && job.reason === REQUESTED_REASON) job.abort.abort(CANCELLED_BY_CALLERS);
  }

  const mainFile = (sessionId: string) => transcripts.mainFile(sessionId);

  const dirFor = (sessionId: string, transcriptPath?: string) =>
    memoryDirFor(deps.projectsDir, (id) => mainFile(id).project, sessionId, transcriptPath);

  /** The session's hold, found by its dir's name: no index lookup per commit or per summary. */
  const heldFor = (sessionId: string) => locks.held().find((held) => sessionOfMemoryDir(held.dir) === sessionId);

  const budgetUsd = deps.dailyBudgetUsd ?? DEFAULT_DAILY_BUDGET_USD;
  const overBudget = (now: number) => jobs.spend.onDayOf(now) >= budgetUsd;
  /** Background jobs wait while paused or over today's budget; jobs a client asked for still run. */
  const requestedOnly = (now: number) => jobs.spend.paused() || overBudget(now);

  /** False when the session's main transcript is deleted (or unknown): nothing to extract, now or later. */
  function transcriptKnownLive(sessionId: string): boolean {
    try {
      return !mainFile(sessionId).gone;
    } catch {
      return false;
    }
  }

  function pump(): void {
    if (closed) return;
    while (running.size < concurrency) {
      const job = jobs.claimNext(clock(), { requestedOnly: requestedOnly(clock()) });
      if (job === null) break;
      const abort = new AbortController();
      const done = run(job, abort)
        .catch((error: unknown) => {
          const message = (error as Error).message;
          if (closed) return;
          if (abort.signal.reason === CANCELLED_BY_CALLERS) {
            jobs.fail(job.id, CANCELLED_BY_CALLERS.message, { retry: false });
            log.info('session-memory extraction cancelled by its callers', { sessionId: job.sessionId, error });
            // Whoever asked since the cancel gets a run of its own.
            if (waiters.has(job.sessionId)) jobs.enqueue(job.sessionId, REQUESTED_REASON, { dueNow: true });
            return;
          }
          const retry = job.attempts < MAX_ATTEMPTS && !isGone(error);
          jobs.fail(job.id, message, { retry, notBefore: clock() + retryDelayMs(job.attempts) });
          log.warn('session-memory extraction failed', {
            sessionId: job.sessionId,
            attempts: job.attempts,
            retry,
            error,
          });
          if (!retry) settle(job.sessionId, error as Error);
        })
        .finally(() => {
          running.delete(job.id);
          pump();
        });
      running.set(job.id, { sessionId: job.sessionId, reason: job.reason, abort, done });
    }
    schedule();
  }

  /** Wakes up when the next deferred job is due (or, over budget, when the next day starts). */
  function schedule(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const now = clock();
    const held = requestedOnly(now);
    let due = jobs.nextDue({ requestedOnly: held });
    if (held && !jobs.spend.paused() && jobs.nextDue() !== null)
      due = Math.min(due ?? Number.POSITIVE_INFINITY, nextLocalMidnight(now));
    if (closed || due === null || running.size >= concurrency) return;
    timer = setTimeout(pump, Math.max(0, due - now));
    timer.unref();
  }

  async function summary(sessionId: string): Promise<MemorySummaryResult> {
    const path = sessionSummaryPath(deps.projectsDir, mainFile(sessionId).project, sessionId);
    // The text first: an extraction writes the file, then its record, so a record read after the
    // text is never older than it (read before, a new text could come with no record yet).
    // A memory written before issue 32 (or by Claude Code) holds the template's instructions: not for the reader.
    const found = await readTextIfPresent(path);
    const text = found === null ? null : stripInstructions(found);
    const last = jobs.lastExtraction(sessionId);
    return {
      sessionId,
      path,
      text,
      lastUuid: last?.lastUuid ?? null,
      extractedAt: last === null ? null : new Date(last.extractedAt).toISOString(),
      summarizer: last?.summarizer ?? null,
      inputTokens: last?.inputTokens ?? 0,
      outputTokens: last?.outputTokens ?? 0,
      costUsd: last?.costUsd ?? null,
    };
  }

  /** Queues a job when the session's triggers say so; true when one was queued. The index alone decides. */
  function enqueueIfDue(sessionId: string, reason?: string): boolean {
    // A deleted transcript is never extracted in the background (a client's request says why it is not).
    if (!transcriptKnownLive(sessionId)) return false;
    const figures = deps.triggerFigures(sessionId);
    if (figures === null) return false;
    const last = jobs.lastExtraction(sessionId);
    const decision = shouldExtract(triggerStateOf(figures, last === null ? null : asLastExtraction(last)));
    if (!decision.extract || decision.reason === null) return false;
    if (!jobs.enqueue(sessionId, reason ?? decision.reason).created) return false;
    pump();
    return true;
  }

  const backfill = createBackfillExtractions({
    sessions: () => deps.sessionActivity(),
    hasExtraction: (sessionId) => jobs.lastExtraction(sessionId) !== null,
    idle: () => running.size === 0 && jobs.nextDue() === null,
    enqueueIfDue: (sessionId) => !closed && enqueueIfDue(sessionId, BACKFILL_REASON),
    maxSessions: deps.backfillExtractions ?? 0,
  });

  return {
    onSessionActive(sessionId) {
      // The agent is working: a turn's hold on the memory lasts while its transcript grows.
      const held = closed ? undefined : heldFor(sessionId);
      if (held !== undefined) locks.renewActive(held.dir);
    },
    onSessionChanged(sessionId) {
      if (closed) return;
      enqueueIfDue(sessionId);
    },
    onSessionBackfilled: (sessionId) => backfill.noteChanged(sessionId),
    onBackfillDone: () => backfill.start(),
    async extract(sessionId, signal) {
      mainFile(sessionId); // NotFound for an unknown session, before anything is queued
      const finished = waiters.wait(sessionId, signal, () => stopRequested(sessionId));
      jobs.enqueue(sessionId, REQUESTED_REASON, { dueNow: true });
      pump();
      await finished;
      return summary(sessionId);
    },
    summary,
    async lock(sessionId, owner, options = {}) {
      const taken = await locks.acquireForAgent(dirFor(sessionId, options.transcriptPath), owner, options.ttlMs, {
        whileActive: options.whileActive === true,
      });
      deps.onMemoryStateChanged?.(sessionId);
      return taken;
    },
    async unlock(sessionId, owner, transcriptPath) {
      const result = await locks.releaseForAgent(dirFor(sessionId, transcriptPath), owner);
      if (!result.released || closed) return result;
      deps.onMemoryStateChanged?.(sessionId);
      // The natural break after a turn: a job the turn deferred runs now, or one is queued if due.
      if (jobs.wake(sessionId)) pump();
      else enqueueIfDue(sessionId);
      return result;
    },
    async cancel(sessionId) {
      for (const job of [...running.values()].filter((candidate) => candidate.sessionId === sessionId)) {
        job.abort.abort();
        await job.done.catch(() => undefined);
      }
      // A client still waiting on a deferred job is told now: the job's row goes with the session.
      settle(
        sessionId,
        new RpcError(ErrorCode.NotFound, 'NotFound', `session ${sessionId} was forgotten`, { sessionId }),
      );
    },
    setPaused(paused) {
      jobs.spend.setPaused(paused);
      log.info(paused ? 'background extraction paused' : 'background extraction resumed');
      pump();
      return { paused };
    },
    memoryState(sessionId) {
      const last = jobs.lastExtraction(sessionId);
      const held = heldFor(sessionId);
      const lock = held === undefined ? null : { owner: held.owner, expiresAt: held.expiresAt };
      // One read of the session's spend: its extraction's share is one of the kinds (every session
      // listed asks, `memctl sessions` fifty at once).
      const byKind = jobs.spend.kindsOfSession(sessionId);
      const extraction = byKind.find((kind) => kind.kind === 'extraction');
      return {
        extractedAt: last === null ? null : new Date(last.extractedAt).toISOString(),
        lock,
        spentUsd: extraction?.usd ?? 0,
        spentTokens: extraction?.tokens ?? NO_TOKENS,
        spentByKind: byKind,
        // Before migration 24 memd kept no writer: a session it extracted holds memd's summary.
        writer: jobs.writers.writerOf(sessionId) ?? (last === null ? null : 'memd'),
      };
    },
    // Claude Code's own summary says nothing of where it stopped: memd's last uuid is not its.
    lastSummarizedUuid: (sessionId) =>
      jobs.writers.writerOf(sessionId) === 'claude-code' ? null : (jobs.lastExtraction(sessionId)?.lastUuid ?? null),
    agentSessions: () => locks.held().map((held) => sessionOfMemoryDir(held.dir)),
    status() {
      return {
        jobs: jobs.counts(),
        running: [...running.values()].map((job) => job.sessionId),
        locks: locks.held().map((held) => ({ sessionDir: held.dir, owner: held.owner, expiresAt: held.expiresAt })),
        paused: jobs.spend.paused(),
        budget: {
          dailyUsd: budgetUsd,
          spentTodayUsd: jobs.spend.onDayOf(clock()),
          reached: overBudget(clock()),
          byKind: jobs.spend.kindsOnDayOf(clock()),
        },
        spentToday: jobs.spend.sessionsOnDayOf(clock(), SPEND_LIST_LIMIT),
      };
    },
    start() {
      const requeued = jobs.recoverAfterRestart();
      if (requeued > 0) log.info('extraction jobs left running by the last daemon run again', { requeued });
      pump();
    },
    async close() {
      closed = true;
      backfill.close();
      if (timer !== null) clearTimeout(timer);
      for (const job of running.values()) job.abort.abort();
      await Promise.allSettled([...running.values()].map((job) => job.done));
      for (const sessionId of waiters.sessions())
        settle(sessionId, new RpcError(ErrorCode.ShuttingDown, 'ShuttingDown', 'memd is shutting down'));
      await locks.close();
      await deps.extractor.close();
    },
  };
}
