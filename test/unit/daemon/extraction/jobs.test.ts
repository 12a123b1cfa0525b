import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  asLastExtraction,
  createJobStore,
  type ExtractionInput,
  type JobStore,
  KEEP_FINISHED_JOBS,
  RETRY_BASE_DELAY_MS,
  RETRY_MAX_DELAY_MS,
  retryDelayMs,
} from '../../../../daemon/extraction/jobs.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

let dir: string;
let dbPath: string;
let store: Store;
let jobs: JobStore;
let now: number;

function open(): JobStore {
  store = openStore(dbPath, fakeLogger());
  return createJobStore({ db: store.db, clock: () => now });
}

/** Enqueues at a later clock tick, so that creation order is unambiguous. */
function enqueueAt(at: number, sessionId: string, reason = 'first') {
  now = at;
  return jobs.enqueue(sessionId, reason).job;
}

const extraction = (sessionId: string, lastUuid: string, contextTokens: number): ExtractionInput => ({
  sessionId,
  lastUuid,
  lastOffset: 4_096,
  contextTokens,
  summarizer: 'offline',
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-jobs-'));
  dbPath = join(dir, 'memd.sqlite');
  now = 1_000;
  jobs = open();
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('enqueue', () => {
  it('keeps one unfinished job per session and returns it to later requests', () => {
    const first = jobs.enqueue('s1', 'first');
    expect(first.created).toBe(true);
    expect(first.job).toMatchObject({
      sessionId: 's1',
      state: 'queued',
      reason: 'first',
      attempts: 0,
      lastError: null,
      notBefore: 0,
      createdAt: 1_000,
    });
    now = 2_000;
    const again = jobs.enqueue('s1', 'natural-break');
    expect(again).toEqual({ job: first.job, created: false });
    expect(jobs.enqueue('s2', 'first').created).toBe(true);

    const running = jobs.claimNext(now);
    expect(running?.sessionId).toBe('s1');
    expect(jobs.enqueue('s1', 'tokens-and-tools')).toEqual({ job: running, created: false });
    expect(jobs.defer(running?.id ?? -1, 5_000, 'summary locked')?.state).toBe('deferred');
    expect(jobs.enqueue('s1', 'tokens-and-tools').job.id).toBe(first.job.id);
  });

  it('queues a new job once the last one finished or failed', () => {
    const first = enqueueAt(1_000, 's1');
    jobs.claimNext(now);
    jobs.finish(first.id);
    const second = enqueueAt(2_000, 's1', 'natural-break');
    expect(second.id).not.toBe(first.id);
    jobs.claimNext(now);
    jobs.fail(second.id, 'boom', { retry: false });
    expect(jobs.enqueue('s1', 'tokens-and-tools').created).toBe(true);
    expect(jobs.counts()).toEqual({ queued: 1, running: 0, deferred: 0, done: 1, failed: 1 });
  });

  it('makes a deferred job due at once for an explicit request, and leaves other states alone', () => {
    const first = enqueueAt(1_000, 's1');
    jobs.claimNext(now);
    jobs.defer(first.id, 60_000, 'locked');
    now = 2_000;
    expect(jobs.enqueue('s1', 'requested')).toMatchObject({ created: false, job: { id: first.id, notBefore: 60_000 } });
    expect(jobs.enqueue('s1', 'requested', { dueNow: true })).toMatchObject({
      created: false,
      job: { id: first.id, state: 'deferred', notBefore: 2_000 },
    });
    expect(jobs.claimNext(now)?.id).toBe(first.id);
    expect(jobs.enqueue('s1', 'requested', { dueNow: true }).job).toMatchObject({ id: first.id, state: 'running' });
  });

  it('is held to the rule by the schema itself', () => {
    enqueueAt(1_000, 's1');
    const insert = store.db.prepare(
      "INSERT INTO memory_jobs (session_id, state, reason, created_at, updated_at) VALUES ('s1', ?, 'manual', 0, 0)",
    );
    for (const state of ['queued', 'running', 'deferred']) expect(() => insert.run(state)).toThrow(/UNIQUE/);
    expect(() => insert.run('done')).not.toThrow();
    expect(() => insert.run('paused')).toThrow(/CHECK/);
  });
});

describe('claimNext', () => {
  it('claims the oldest due job, running, with one more attempt', () => {
    const a = enqueueAt(1_000, 'a');
    const b = enqueueAt(2_000, 'b');
    const c = enqueueAt(3_000, 'c');
    now = 10_000;
    expect(jobs.claimNext(now)).toMatchObject({ id: a.id, state: 'running', attempts: 1, updatedAt: 10_000 });
    expect(jobs.claimNext(now)?.id).toBe(b.id);
    expect(jobs.claimNext(now)?.id).toBe(c.id);
    expect(jobs.claimNext(now)).toBeNull();
  });

  it('skips jobs deferred past now, and takes them in creation order once due', () => {
    const a = enqueueAt(1_000, 'a');
    const b = enqueueAt(2_000, 'b');
    jobs.defer(a.id, 50_000, 'summary locked by the main agent');
    jobs.defer(b.id, 40_000, 'summary locked by the main agent');
    expect(jobs.nextDue()).toBe(40_000);
    expect(jobs.claimNext(39_999)).toBeNull();
    expect(jobs.claimNext(40_000)?.id).toBe(b.id);
    const c = enqueueAt(45_000, 'c');
    expect(jobs.nextDue()).toBe(0);
    expect(jobs.claimNext(60_000)?.id).toBe(a.id);
    expect(jobs.claimNext(60_000)?.id).toBe(c.id);
    expect(jobs.nextDue()).toBeNull();
  });

  it('never claims a session twice: its running job is not handed out again', () => {
    const a = enqueueAt(1_000, 'a');
    expect(jobs.claimNext(now)?.id).toBe(a.id);
    expect(jobs.claimNext(now)).toBeNull();
    // A trigger firing meanwhile gets the running job back, not a second one to run beside it.
    expect(jobs.enqueue('a', 'tokens-and-tools').job).toMatchObject({ id: a.id, state: 'running' });
    const b = enqueueAt(2_000, 'b');
    expect(jobs.claimNext(now)?.id).toBe(b.id);
    expect(jobs.claimNext(now)).toBeNull();
    expect(jobs.counts().running).toBe(2);
  });
});

describe('retries and backoff', () => {
  it('doubles the delay per attempt up to the cap', () => {
    expect(retryDelayMs(1)).toBe(RETRY_BASE_DELAY_MS);
    expect(retryDelayMs(2)).toBe(2 * RETRY_BASE_DELAY_MS);
    expect(retryDelayMs(3)).toBe(4 * RETRY_BASE_DELAY_MS);
    expect(retryDelayMs(30)).toBe(RETRY_MAX_DELAY_MS);
  });

  it('defers a retried job until its backoff ends, then fails it for good', () => {
    const job = enqueueAt(1_000, 's1');
    const first = jobs.claimNext(now);
    const retryAt = now + retryDelayMs(first?.attempts ?? 0);
    const deferred = jobs.fail(job.id, '529 overloaded', { retry: true, notBefore: retryAt });
    expect(deferred).toMatchObject({ state: 'deferred', lastError: '529 overloaded', notBefore: retryAt, attempts: 1 });
    expect(jobs.claimNext(retryAt - 1)).toBeNull();

    now = retryAt;
    const second = jobs.claimNext(now);
    expect(second).toMatchObject({ id: job.id, state: 'running', attempts: 2 });
    expect(jobs.fail(job.id, 'reply lost its headings', { retry: false })).toMatchObject({
      state: 'failed',
      lastError: 'reply lost its headings',
    });
    expect(jobs.claimNext(Number.MAX_SAFE_INTEGER)).toBeNull();
  });

  it('retries at once when no time is given', () => {
    const job = enqueueAt(7_000, 's1');
    jobs.claimNext(now);
    expect(jobs.fail(job.id, 'ECONNRESET', { retry: true })?.notBefore).toBe(7_000);
    expect(jobs.claimNext(now)?.id).toBe(job.id);
  });

  it('changes nothing for a job in the wrong state', () => {
    const job = enqueueAt(1_000, 's1');
    expect(jobs.finish(job.id, extraction('s1', 'u9', 12_000))).toBeNull();
    expect(jobs.fail(job.id, 'x', { retry: false })).toBeNull();
    expect(jobs.lastExtraction('s1')).toBeNull();
    jobs.claimNext(now);
    jobs.finish(job.id);
    expect(jobs.defer(job.id, 9_000, 'locked')).toBeNull();
    expect(jobs.finish(job.id)).toBeNull();
    expect(jobs.get(job.id)?.state).toBe('done');
    expect(jobs.get(12_345)).toBeNull();
  });
});

describe('extractions', () => {
  it('records the extraction with the finished job, in one step', () => {
    const job = enqueueAt(1_000, 's1');
    jobs.claimNext(now);
    now = 3_000;
    const { sessionId: _sessionId, ...done } = extraction('s1', 'u-42', 12_345);
    expect(jobs.finish(job.id, done)?.state).toBe('done');
    const record = jobs.lastExtraction('s1');
    expect(record).toEqual({ ...extraction('s1', 'u-42', 12_345), extractedAt: 3_000 });
    expect(record && asLastExtraction(record)).toEqual({ uuid: 'u-42', atOffset: 4_096, contextTokens: 12_345 });
  });

  it('keeps only the latest extraction of a session', () => {
    jobs.recordExtraction(extraction('s1', 'u-1', 10_000));
    now = 5_000;
    const later = {
      ...extraction('s1', 'u-2', 16_000),
      lastOffset: null,
      summarizer: 'anthropic',
      inputTokens: 9_000,
      outputTokens: 1_200,
      costUsd: null,
    };
    jobs.recordExtraction(later);
    expect(jobs.lastExtraction('s1')).toEqual({ ...later, extractedAt: 5_000 });
    expect(asLastExtraction({ ...later, lastUuid: null, extractedAt: 5_000 })).toEqual({ contextTokens: 16_000 });
    expect(jobs.lastExtraction('s2')).toBeNull();
  });
});

describe('status', () => {
  it('counts jobs by state and lists them newest first', () => {
    const a = enqueueAt(1_000, 'a');
    const b = enqueueAt(2_000, 'b');
    const c = enqueueAt(3_000, 'c');
    enqueueAt(4_000, 'd');
    jobs.claimNext(now);
    jobs.claimNext(now);
    jobs.claimNext(now);
    jobs.finish(a.id);
    jobs.fail(b.id, 'boom', { retry: false });
    jobs.defer(c.id, 9_000, 'locked');
    enqueueAt(5_000, 'a');
    expect(jobs.counts()).toEqual({ queued: 2, running: 0, deferred: 1, done: 1, failed: 1 });
    expect(jobs.list().map((job) => `${job.sessionId}:${job.state}`)).toEqual([
      'a:queued',
      'd:queued',
      'c:deferred',
      'b:failed',
      'a:done',
    ]);
    expect(jobs.list({ states: ['queued', 'deferred'], limit: 2 }).map((job) => job.sessionId)).toEqual(['a', 'd']);
  });

  it('prunes the oldest finished jobs beyond the kept number, and still counts them', () => {
    const total = KEEP_FINISHED_JOBS + 30;
    for (let n = 0; n < total; n++) {
      const job = enqueueAt(1_000 + n, `s${n % 7}`);
      expect(jobs.claimNext(now)?.id).toBe(job.id);
      if (n % 10 === 0) jobs.fail(job.id, 'boom', { retry: false });
      else jobs.finish(job.id);
    }
    const unfinished = enqueueAt(1_000_000, 'open');
    expect(jobs.counts()).toEqual({ queued: 1, running: 0, deferred: 0, done: total - total / 10, failed: total / 10 });
    const kept = jobs.list({ states: ['done', 'failed'], limit: total });
    expect(kept).toHaveLength(KEEP_FINISHED_JOBS);
    expect(kept.at(-1)?.createdAt).toBe(1_000 + total - KEEP_FINISHED_JOBS);
    expect(jobs.get(unfinished.id)?.state).toBe('queued');
  });
});

describe('recoverAfterRestart', () => {
  it('queues again the jobs that were running when the daemon died, and keeps the rest', () => {
    const a = enqueueAt(1_000, 'a');
    const b = enqueueAt(2_000, 'b');
    enqueueAt(3_000, 'c');
    jobs.claimNext(now);
    jobs.claimNext(now);
    jobs.defer(b.id, 20_000, 'summary locked');
    jobs.recordExtraction(extraction('z', 'u-7', 11_000));
    // The daemon dies: nothing is finished, the file is simply closed and opened again.
    store.close();
    now = 10_000;
    jobs = open();

    expect(jobs.recoverAfterRestart()).toBe(1);
    expect(jobs.get(a.id)).toMatchObject({ state: 'queued', attempts: 1, updatedAt: 10_000 });
    expect(jobs.get(b.id)).toMatchObject({ state: 'deferred', notBefore: 20_000 });
    expect(jobs.counts()).toEqual({ queued: 2, running: 0, deferred: 1, done: 0, failed: 0 });
    expect(jobs.claimNext(now)).toMatchObject({ id: a.id, state: 'running', attempts: 2 });
    expect(jobs.lastExtraction('z')?.lastUuid).toBe('u-7');
    expect(jobs.recoverAfterRestart()).toBe(1);
    expect(jobs.recoverAfterRestart()).toBe(0);
  });
});

describe('what background extraction may run, and what it spent', () => {
  it('claims only requested jobs when asked to, and a request turns a waiting background job into one', () => {
    enqueueAt(1_000, 's1', 'first');
    expect(jobs.claimNext(now, { requestedOnly: true })).toBeNull();
    expect(jobs.nextDue({ requestedOnly: true })).toBeNull();
    expect(jobs.nextDue()).toBe(0);
    now = 2_000;
    expect(jobs.enqueue('s1', 'requested', { dueNow: true }).job).toMatchObject({
      reason: 'requested',
      notBefore: 2_000,
    });
    expect(jobs.claimNext(now, { requestedOnly: true })?.sessionId).toBe('s1');
  });

  it('wakes a deferred job when its lock is let go, and nothing else', () => {
    const job = enqueueAt(1_000, 's1');
    jobs.claimNext(now);
    jobs.defer(job.id, 60_000, 'held by claude-code-turn');
    expect(jobs.claimNext(now)).toBeNull();
    expect(jobs.wake('s2')).toBe(false);
    now = 3_000;
    expect(jobs.wake('s1')).toBe(true);
    expect(jobs.claimNext(now)?.id).toBe(job.id);
    expect(jobs.wake('s1')).toBe(false);
  });

  it('adds up priced extractions per local day and session, and ignores free ones', () => {
    const day = new Date(2026, 11, 4, 10, 0).getTime();
    now = day;
    jobs.recordExtraction({ ...extraction('s1', 'u1', 12_000), costUsd: 0.25 });
    jobs.recordExtraction({ ...extraction('s1', 'u2', 17_000), costUsd: 0.5 });
    jobs.recordExtraction({ ...extraction('s2', 'u3', 12_000), costUsd: 0.125 });
    jobs.recordExtraction({ ...extraction('s3', 'u4', 12_000), costUsd: 0 });
    jobs.recordExtraction({ ...extraction('s3', 'u5', 12_000), costUsd: null });
    now = new Date(2026, 11, 5, 9, 0).getTime();
    jobs.recordExtraction({ ...extraction('s1', 'u6', 23_000), costUsd: 1 });
    expect(jobs.spend.onDayOf(day)).toBeCloseTo(0.875);
    expect(jobs.spend.onDayOf(now)).toBeCloseTo(1);
    expect(jobs.spend.ofSession('s1')).toBeCloseTo(1.75);
    expect(jobs.spend.ofSession('s3')).toBe(0);
    expect(jobs.spend.sessionsOnDayOf(day, 10)).toEqual([
      { sessionId: 's1', usd: 0.75 },
      { sessionId: 's2', usd: 0.125 },
    ]);
  });

  it('keeps the tokens of each extraction, cache reads and writes apart, even when the price is unknown', () => {
    const day = new Date(2026, 11, 4, 10, 0).getTime();
    now = day;
    const tokens = { inputTokens: 40, outputTokens: 500, cacheWriteTokens: 3_000, cacheReadTokens: 0 };
    jobs.recordExtraction({ ...extraction('s1', 'u1', 12_000), ...tokens, costUsd: 0.01 });
    const grown = { inputTokens: 60, outputTokens: 400, cacheWriteTokens: 2_000, cacheReadTokens: 3_000 };
    jobs.recordExtraction({ ...extraction('s1', 'u2', 17_000), ...grown, costUsd: null });
    jobs.recordExtraction({ ...extraction('s2', 'u3', 12_000), costUsd: 0 });
    expect(jobs.spend.tokensOfSession('s1')).toEqual({ input: 100, output: 900, cacheRead: 3_000, cacheWrite: 5_000 });
    expect(jobs.spend.tokensOfSession('s2')).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(jobs.spend.ofSession('s1')).toBeCloseTo(0.01);
    expect(jobs.spend.sessionsOnDayOf(day, 10)).toEqual([{ sessionId: 's1', usd: 0.01 }]);
  });

  it('keeps the pause across a reopen of the database', () => {
    expect(jobs.spend.paused()).toBe(false);
    jobs.spend.setPaused(true);
    jobs.spend.setPaused(true);
    store.close();
    jobs = open();
    expect(jobs.spend.paused()).toBe(true);
    jobs.spend.setPaused(false);
    expect(jobs.spend.paused()).toBe(false);
  });
});
