/**
 * One extraction job's run, from the queue's claim to its record (service.ts claims the jobs and
 * decides what a failure means): the transcript must still be there; a held session-memory lock
 * defers the job (a backfill job is dropped instead); the summarizer runs on what is new since
 * the last extraction; `summary.md` is written atomically under the lock; the run is priced at
 * the summarizer model's rates, recorded, and published as `memory.extracted`.
 */
import { access, mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sessionMemoryConfigDir, sessionMemoryDir, sessionSummaryPath } from '../../shared/paths.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { costOf, type ModelPrice } from '../../shared/transcript/models.js';
import type { Bus } from '../bus/bus.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { readTextIfPresent } from '../fs/read.js';
import type { Logger } from '../log/logger.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import type { Extractor } from './extract.js';
import { asLastExtraction, type JobStore, type MemoryJob, retryDelayMs } from './jobs.js';
import type { MemoryLocks } from './lock.js';
import { isBareTemplate, SESSION_MEMORY_TEMPLATE, stripInstructions } from './template.js';
import { type SummaryFile, writtenByOther } from './writer.js';

/** The reason of the jobs backfill.ts queues. */
export const BACKFILL_REASON = 'backfill';
/** The abort reason of a requested job whose clients all cancelled: given up, not retried. */
export const CANCELLED_BY_CALLERS = new Error('extraction cancelled by its callers');

/** What a run needs: the service's deps (service.ts passes its own) and how to tell the waiters. */
export interface JobRunDeps {
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
  onExtracted?(sessionId: string): void;
  /** The session's summary.md changed hands (writer.ts): its memory state changed. */
  onWriterChanged?(sessionId: string): void;
  /** The clients waiting for the session's extraction are told: done (null) or why not. */
  settle(sessionId: string, error: Error | null): void;
}

/** Runs one claimed job; it throws when the job failed (or was aborted), for the caller to decide on a retry. */
export type JobRun = (job: MemoryJob, abort: AbortController) => Promise<void>;

/** The summary's text and mtime; null when there is none. */
async function summaryFile(path: string): Promise<SummaryFile | null> {
  const text = await readTextIfPresent(path);
  if (text === null) return null;
  const mtimeMs = await stat(path).then(
    (stats) => stats.mtimeMs,
    () => Number.POSITIVE_INFINITY,
  );
  return { text, mtimeMs };
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

export function createJobRun(deps: JobRunDeps): JobRun {
  const { transcripts, jobs, locks, log, clock, bus, settle } = deps;

  const configFile = (name: string) => readTextIfPresent(join(sessionMemoryConfigDir(deps.claudeRoot), name));

  const mainFile = (sessionId: string) => transcripts.mainFile(sessionId);

  /** The main transcript's entries from the index alone; none for a session it does not know. */
  const entriesOf = async (sessionId: string, signal: AbortSignal) =>
    (await transcripts.sessionEntries(sessionId, signal)).main;

  async function run(job: MemoryJob, abort: AbortController): Promise<void> {
    const file = mainFile(job.sessionId);
    // The file itself decides (the index may not have seen the deletion yet): a job for a deleted
    // transcript is dropped, never retried, so that a forgotten session is not logged again and again.
    if (file.gone || !(await exists(file.path))) {
      throw new RpcError(
        ErrorCode.NotFound,
        'TranscriptGone',
        `the transcript of session ${job.sessionId} is gone: nothing to extract`,
        { sessionId: job.sessionId },
      );
    }
    const dir = sessionMemoryDir(deps.projectsDir, file.project, job.sessionId);
    const path = sessionSummaryPath(deps.projectsDir, file.project, job.sessionId);
    if (await locks.isLocked(dir)) {
      if (job.reason === BACKFILL_REASON) {
        // A held lock means a live agent: its changes trigger extraction live, at their priority.
        jobs.finish(job.id);
        log.info('backfill extraction skipped: the session memory is locked', { sessionId: job.sessionId });
        settle(
          job.sessionId,
          new RpcError(
            ErrorCode.Locked,
            'Locked',
            `the session memory of ${job.sessionId} is locked by another writer (memory.lock)`,
          ),
        );
        return;
      }
      // The main agent's turn: no summary is made (nor paid for) that could not be written. The
      // job waits for the lock's end; an unlock wakes it at once (service.ts, unlock).
      deferLocked(job, dir);
      return;
    }
    const last = jobs.lastExtraction(job.sessionId);
    const found = await summaryFile(path);
    if (found !== null && !isBareTemplate(found.text)) {
      if (writtenByOther(found, jobs.writers.memdHashes(job.sessionId), last?.extractedAt ?? null)) {
        leaveToClaudeCode(job);
        return;
      }
    }
    const previousText = found?.text ?? null;
    const previous = previousText === null || isBareTemplate(previousText) ? null : stripInstructions(previousText);
    const template = (await configFile('template.md')) ?? SESSION_MEMORY_TEMPLATE;
    const prompt = (await configFile('prompt.md')) ?? undefined;
    const result = await deps.extractor.run({
      sessionId: job.sessionId,
      dbPath: transcripts.dbPath,
      path: file.path,
      entries: () => entriesOf(job.sessionId, abort.signal),
      lastExtraction: last === null ? null : asLastExtraction(last),
      sinceUuid: last?.lastUuid ?? null,
      previous,
      template,
      ...(prompt === undefined ? {} : { prompt }),
      signal: abort.signal,
    });
    if (abort.signal.aborted)
      throw abort.signal.reason === CANCELLED_BY_CALLERS
        ? CANCELLED_BY_CALLERS
        : new Error('extraction cancelled by shutdown');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    let overtaken = false;
    const written = await locks.withExtractionLock(dir, async () => {
      // Claude Code may have written the file while the summarizer ran: its text stays.
      const now = await readTextIfPresent(path);
      overtaken = now !== previousText && now !== null && !isBareTemplate(now);
      if (overtaken) return;
      // A model's reply keeps the template's instructions (its prompt asks it to); the file does not.
      const text = stripInstructions(result.text, template);
      jobs.writers.writingByMemd(job.sessionId, text);
      await writeFileAtomic(path, text);
    });
    if (written.deferred) {
      deferLocked(job, dir);
      return;
    }
    if (overtaken) {
      leaveToClaudeCode(job);
      return;
    }
    // Priced at the summarizer model's rates, not the session's.
    const price = result.usage === null ? null : deps.price(result.model);
    const costUsd =
      result.usage === null
        ? 0
        : price === null
          ? null
          : costOf(
              {
                input: result.usage.input,
                output: result.usage.output,
                cacheRead: result.usage.cacheRead,
                cacheCreation: result.usage.cacheWrite,
                cache5m: result.usage.cacheWrite,
                cache1h: 0,
              },
              price,
            );
    jobs.finish(job.id, {
      lastUuid: result.lastUuid,
      lastOffset: result.lastOffset,
      contextTokens: result.contextTokens,
      summarizer: result.summarizer,
      inputTokens: result.usage?.input ?? 0,
      outputTokens: result.usage?.output ?? 0,
      cacheReadTokens: result.usage?.cacheRead ?? 0,
      cacheWriteTokens: result.usage?.cacheWrite ?? 0,
      costUsd,
    });
    bus.publish('memory.extracted', {
      sessionId: job.sessionId,
      path,
      summarizer: result.summarizer,
      lastUuid: result.lastUuid,
      rejectedReplies: result.rejected,
      // Replies that lacked the <summary> tag and were taken whole (summary-reply.ts).
      untaggedReplies: result.untagged,
    });
    deps.onExtracted?.(job.sessionId);
    settle(job.sessionId, null);
  }

  /** Claude Code's session memory wrote the summary: memd reads it and writes no rival (writer.ts). */
  function leaveToClaudeCode(job: MemoryJob): void {
    const before = jobs.writers.writerOf(job.sessionId);
    jobs.writers.foundOthers(job.sessionId);
    jobs.finish(job.id);
    if (before !== 'claude-code') {
      log.info('session memory written by Claude Code: memd reads it and stops writing its own', {
        sessionId: job.sessionId,
      });
      deps.onWriterChanged?.(job.sessionId);
    }
    settle(
      job.sessionId,
      new RpcError(
        ErrorCode.Conflict,
        'WrittenByClaudeCode',
        `the session memory of ${job.sessionId} is Claude Code's own (its summary.md is not what memd wrote): memd reads it and writes none`,
        { sessionId: job.sessionId },
      ),
    );
  }

  /** Defers a job whose session memory someone holds: until the hold lapses, or its backoff. */
  function deferLocked(job: MemoryJob, dir: string): void {
    const holder = locks.held().find((held) => held.dir === resolve(dir));
    const notBefore = holder?.expiresAt ?? clock() + retryDelayMs(job.attempts);
    jobs.defer(
      job.id,
      notBefore,
      holder === undefined
        ? 'the session memory is locked by another writer'
        : `the session memory is held by ${holder.owner}`,
    );
    // Whoever asked for this one is told now, not after the holder lets go (which may take minutes).
    const retryAt = new Date(notBefore).toISOString();
    settle(
      job.sessionId,
      new RpcError(
        ErrorCode.Locked,
        'Locked',
        `the session memory of ${job.sessionId} is locked by ${holder?.owner ?? 'another writer'} (memory.lock); the extraction is deferred and runs once it is free (at the latest ${retryAt})`,
        {
          retryAt,
          owner: holder?.owner ?? null,
        },
      ),
    );
  }

  return run;
}
