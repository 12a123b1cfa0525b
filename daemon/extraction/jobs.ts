/**
 * Session-memory extraction jobs and the record of each session's last extraction, in SQLite
 * (migration 4), so that both survive a restart (issue 5 item 2).
 *
 * A job goes queued → running → done, or → failed, or back to deferred (a held lock, a retryable
 * error) until its `not_before`. A session has at most one unfinished (queued, running or deferred)
 * job: the schema's partial unique index says so, and `enqueue` returns the unfinished job instead
 * of adding one. `attempts` counts the times a job was claimed. A job that was running when the
 * daemon died is queued again by `recoverAfterRestart`, so it runs again.
 *
 * Every write is one synchronous transaction; the statements are prepared once per store.
 */
import type Database from 'better-sqlite3';
import type { LastExtraction } from '../../shared/transcript/accounting.js';
import { createSpendBook, type SpendBook } from '../llm/spend.js';
import { createWriterBook, type WriterBook } from './writer.js';

export type JobState = 'queued' | 'running' | 'deferred' | 'done' | 'failed';

export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'deferred', 'done', 'failed'];

/** First retry delay; doubled per attempt. Long enough for a 429 or a lock holder to go away. */
export const RETRY_BASE_DELAY_MS = 5_000;
/** Retries never wait longer: a session's memory should not fall more than this behind. */
export const RETRY_MAX_DELAY_MS = 5 * 60_000;

export interface MemoryJob {
  id: number;
  sessionId: string;
  state: JobState;
  /** Why it was queued: a trigger reason, or what asked for it (`memory.extract`). */
  reason: string;
  attempts: number;
  /** The last failure, or why it was last deferred. */
  lastError: string | null;
  /** Epoch ms before which it is not claimed. */
  notBefore: number;
  createdAt: number;
  updatedAt: number;
}

export interface EnqueueResult {
  job: MemoryJob;
  /** False when the session already had an unfinished job, which is returned instead. */
  created: boolean;
}

export interface FailOptions {
  /** True: deferred until `notBefore` (default: now), to be claimed again; false: failed for good. */
  retry: boolean;
  notBefore?: number;
}

export interface ClaimOptions {
  /** Only jobs someone asked for (`memory.extract`): background extraction is paused or over budget. */
  requestedOnly?: boolean;
}

/** The reason of a job that a client asked for; background jobs carry their trigger's. */
export const REQUESTED_REASON = 'requested';

export interface ListOptions {
  /** Default: every state. */
  states?: readonly JobState[];
  /** Default 100; newest first. */
  limit?: number;
}

/** The last extraction of a session: where it stopped and what it cost. */
export interface ExtractionRecord {
  sessionId: string;
  /** The last summarized entry (session-memory compaction keeps what follows it). */
  lastUuid: string | null;
  /** That entry's byte offset in the main transcript, for when the uuid is no longer found. */
  lastOffset: number | null;
  /** Context tokens when it ran: the triggers measure growth from here. */
  contextTokens: number;
  /** Epoch ms. */
  extractedAt: number;
  summarizer: string;
  inputTokens: number;
  outputTokens: number;
  /** Prompt-cache reads and writes of the model call (the spend ledger keeps them; 0 offline). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Null when the model's price is unknown. */
  costUsd: number | null;
}

/** What an extraction reports; the store stamps the time. */
export type ExtractionInput = Omit<ExtractionRecord, 'extractedAt'>;

export interface JobStoreDeps {
  db: Database.Database;
  /** Epoch ms, for created_at / updated_at and defaults. */
  clock: () => number;
}

export interface JobStore {
  /**
   * A new queued job, or the session's unfinished one. `dueNow` (an explicit request) makes a
   * waiting one due at once instead of at the end of its backoff, with the request's reason.
   */
  enqueue(sessionId: string, reason: string, options?: { dueNow?: boolean }): EnqueueResult;
  /**
   * The oldest queued or deferred job due at `now` whose session has no running job, now running
   * with one more attempt; null when none is due.
   */
  claimNext(now: number, options?: ClaimOptions): MemoryJob | null;
  /**
   * running → done, recording the extraction (when given) in the same transaction. Null when the
   * job is not running; then nothing is written.
   */
  finish(id: number, extraction?: Omit<ExtractionInput, 'sessionId'>): MemoryJob | null;
  /** running → failed, or → deferred until `notBefore` when retried. Null when not running. */
  fail(id: number, error: string, options: FailOptions): MemoryJob | null;
  /** Any unfinished job → deferred until `notBefore`, with the reason as its last error. Null when finished or absent. */
  defer(id: number, notBefore: number, reason: string): MemoryJob | null;
  /** running → queued, for jobs that a dead daemon left running; the number requeued. */
  recoverAfterRestart(): number;
  get(id: number): MemoryJob | null;
  list(options?: ListOptions): MemoryJob[];
  counts(): Record<JobState, number>;
  /** The earliest `not_before` of a queued or deferred job (of those claimNext may take): when the runner should look again. */
  nextDue(options?: ClaimOptions): number | null;
  /** The session's deferred job, due now (its lock holder let go); false when it has none. */
  wake(sessionId: string): boolean;
  /** Priced extractions (recorded with each finished job) and the pause switch. */
  readonly spend: SpendBook;
  /** Who wrote each session's summary.md (writer.ts). */
  readonly writers: WriterBook;
  lastExtraction(sessionId: string): ExtractionRecord | null;
  recordExtraction(extraction: ExtractionInput): ExtractionRecord;
}

interface JobRow {
  id: number;
  session_id: string;
  state: JobState;
  reason: string;
  attempts: number;
  last_error: string | null;
  not_before: number;
  created_at: number;
  updated_at: number;
}

interface ExtractionRow {
  session_id: string;
  last_uuid: string | null;
  last_offset: number | null;
  context_tokens: number;
  extracted_at: number;
  summarizer: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

const DEFAULT_LIST_LIMIT = 100;
/** Finished jobs kept for `list`; older ones are pruned and only counted (memory_job_totals). */
export const KEEP_FINISHED_JOBS = 500;

/** The delay before retry number `attempts` (1 after the first failure): exponential, capped. */
export function retryDelayMs(attempts: number): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** exponent);
}

/** The accounting's view of a record: where growth and tool calls are counted from. */
export function asLastExtraction(record: ExtractionRecord): LastExtraction {
  const last: LastExtraction = { contextTokens: record.contextTokens };
  if (record.lastUuid !== null) last.uuid = record.lastUuid;
  if (record.lastOffset !== null) last.atOffset = record.lastOffset;
  return last;
}

function jobFromRow(row: JobRow): MemoryJob {
  return {
    id: row.id,
    sessionId: row.session_id,
    state: row.state,
    reason: row.reason,
    attempts: row.attempts,
    lastError: row.last_error,
    notBefore: row.not_before,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function extractionFromRow(row: ExtractionRow): ExtractionRecord {
  return {
    sessionId: row.session_id,
    lastUuid: row.last_uuid,
    lastOffset: row.last_offset,
    contextTokens: row.context_tokens,
    extractedAt: row.extracted_at,
    summarizer: row.summarizer,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
  };
}

const UNFINISHED = `('queued', 'running', 'deferred')`;

function prepare(db: Database.Database) {
  return {
    unfinished: db.prepare(`SELECT * FROM memory_jobs WHERE session_id = ? AND state IN ${UNFINISHED}`),
    insert: db.prepare(
      `INSERT INTO memory_jobs (session_id, state, reason, attempts, not_before, created_at, updated_at)
       VALUES (?, 'queued', ?, 0, 0, ?, ?) RETURNING *`,
    ),
    // The running check is what the unique index already guarantees; it stays so that claiming
    // never depends on how the rule is enforced.
    due: db.prepare(
      `SELECT id FROM memory_jobs AS job
       WHERE state IN ('queued', 'deferred') AND not_before <= ? AND (? = 0 OR reason = '${REQUESTED_REASON}')
         AND NOT EXISTS (SELECT 1 FROM memory_jobs AS other WHERE other.session_id = job.session_id AND other.state = 'running')
       ORDER BY created_at, id LIMIT 1`,
    ),
    wake: db.prepare(
      `UPDATE memory_jobs SET not_before = ?, updated_at = ? WHERE session_id = ? AND state = 'deferred' AND not_before > ?`,
    ),
    expedite: db.prepare(
      `UPDATE memory_jobs SET not_before = ?, reason = ?, updated_at = ? WHERE id = ? AND state IN ('queued', 'deferred') RETURNING *`,
    ),
    claim: db.prepare(
      `UPDATE memory_jobs SET state = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ? RETURNING *`,
    ),
    finish: db.prepare(
      `UPDATE memory_jobs SET state = 'done', updated_at = ? WHERE id = ? AND state = 'running' RETURNING *`,
    ),
    failed: db.prepare(
      `UPDATE memory_jobs SET state = 'failed', last_error = ?, updated_at = ? WHERE id = ? AND state = 'running' RETURNING *`,
    ),
    retry: db.prepare(
      `UPDATE memory_jobs SET state = 'deferred', last_error = ?, not_before = ?, updated_at = ? WHERE id = ? AND state = 'running' RETURNING *`,
    ),
    defer: db.prepare(
      `UPDATE memory_jobs SET state = 'deferred', last_error = ?, not_before = ?, updated_at = ? WHERE id = ? AND state IN ${UNFINISHED} RETURNING *`,
    ),
    recover: db.prepare(`UPDATE memory_jobs SET state = 'queued', updated_at = ? WHERE state = 'running'`),
    get: db.prepare('SELECT * FROM memory_jobs WHERE id = ?'),
    list: db.prepare(
      'SELECT * FROM memory_jobs WHERE state IN (SELECT value FROM json_each(?)) ORDER BY id DESC LIMIT ?',
    ),
    counts: db.prepare(
      `SELECT state, SUM(n) AS n FROM (
         SELECT state, COUNT(*) AS n FROM memory_jobs GROUP BY state
         UNION ALL SELECT state, pruned AS n FROM memory_job_totals
       ) GROUP BY state`,
    ),
    // The id below which finished jobs are pruned: that of the newest one beyond the kept number.
    pruneBelow: db.prepare(
      `SELECT id FROM memory_jobs WHERE state IN ('done', 'failed') ORDER BY id DESC LIMIT 1 OFFSET ?`,
    ),
    prunedCounts: db.prepare(
      `SELECT state, COUNT(*) AS n FROM memory_jobs WHERE state IN ('done', 'failed') AND id <= ? GROUP BY state`,
    ),
    addPruned: db.prepare(
      `INSERT INTO memory_job_totals (state, pruned) VALUES (?, ?) ON CONFLICT (state) DO UPDATE SET pruned = pruned + excluded.pruned`,
    ),
    prune: db.prepare(`DELETE FROM memory_jobs WHERE state IN ('done', 'failed') AND id <= ?`),
    earliest: db.prepare(
      `SELECT MIN(not_before) AS at FROM memory_jobs WHERE state IN ('queued', 'deferred') AND (? = 0 OR reason = '${REQUESTED_REASON}')`,
    ),
    lastExtraction: db.prepare('SELECT * FROM memory_extractions WHERE session_id = ?'),
    record: db.prepare(
      `INSERT INTO memory_extractions
         (session_id, last_uuid, last_offset, context_tokens, extracted_at, summarizer, input_tokens, output_tokens, cost_usd)
       VALUES (@sessionId, @lastUuid, @lastOffset, @contextTokens, @extractedAt, @summarizer, @inputTokens, @outputTokens, @costUsd)
       ON CONFLICT (session_id) DO UPDATE SET
         last_uuid = excluded.last_uuid, last_offset = excluded.last_offset, context_tokens = excluded.context_tokens,
         extracted_at = excluded.extracted_at, summarizer = excluded.summarizer, input_tokens = excluded.input_tokens,
         output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd`,
    ),
  };
}

export function createJobStore({ db, clock }: JobStoreDeps): JobStore {
  const sql = prepare(db);
  const spend = createSpendBook(db);
  const writers = createWriterBook(db);
  const jobOf = (row: unknown): MemoryJob | null => (row === undefined ? null : jobFromRow(row as JobRow));

  const record = (extraction: ExtractionInput): ExtractionRecord => {
    // Field by field: a caller's object may carry more than the statement's named parameters.
    const stored: ExtractionRecord = {
      sessionId: extraction.sessionId,
      lastUuid: extraction.lastUuid,
      lastOffset: extraction.lastOffset,
      contextTokens: extraction.contextTokens,
      extractedAt: clock(),
      summarizer: extraction.summarizer,
      inputTokens: extraction.inputTokens,
      outputTokens: extraction.outputTokens,
      costUsd: extraction.costUsd,
    };
    sql.record.run(stored);
    spend.add(stored.sessionId, stored.costUsd, stored.extractedAt, {
      input: extraction.inputTokens,
      output: extraction.outputTokens,
      cacheRead: extraction.cacheReadTokens ?? 0,
      cacheWrite: extraction.cacheWriteTokens ?? 0,
    });
    return stored;
  };

  // Run IMMEDIATE: the write lock is taken at BEGIN, where busy_timeout waits for another
  // connection to let go, not by a read turning into a write, which fails with SQLITE_BUSY.
  const enqueue = db.transaction((sessionId: string, reason: string, dueNow: boolean): EnqueueResult => {
    const now = clock();
    const existing = jobOf(sql.unfinished.get(sessionId));
    // Asked for: due now, and a job someone asked for (a pause or a spent budget holds only background ones).
    if (existing !== null && dueNow && existing.state !== 'running')
      return { job: jobFromRow(sql.expedite.get(now, reason, now, existing.id) as JobRow), created: false };
    if (existing !== null) return { job: existing, created: false };
    return { job: jobFromRow(sql.insert.get(sessionId, reason, now, now) as JobRow), created: true };
  });

  const claimNext = db.transaction((now: number, requestedOnly: boolean): MemoryJob | null => {
    const due = sql.due.get(now, requestedOnly ? 1 : 0) as { id: number } | undefined;
    return due === undefined ? null : jobOf(sql.claim.get(now, due.id));
  });

  /** Within the transaction that finished a job: the oldest finished ones beyond the kept number go. */
  const prune = (): void => {
    const below = sql.pruneBelow.get(KEEP_FINISHED_JOBS) as { id: number } | undefined;
    if (below === undefined) return;
    for (const row of sql.prunedCounts.all(below.id) as { state: JobState; n: number }[])
      sql.addPruned.run(row.state, row.n);
    sql.prune.run(below.id);
  };

  const finish = db.transaction((id: number, extraction?: Omit<ExtractionInput, 'sessionId'>): MemoryJob | null => {
    const job = jobOf(sql.finish.get(clock(), id));
    if (job !== null && extraction !== undefined) record({ ...extraction, sessionId: job.sessionId });
    if (job !== null) prune();
    return job;
  });

  const fail = db.transaction((id: number, error: string, options: FailOptions): MemoryJob | null => {
    const now = clock();
    if (options.retry) return jobOf(sql.retry.get(error, options.notBefore ?? now, now, id));
    const job = jobOf(sql.failed.get(error, now, id));
    if (job !== null) prune();
    return job;
  });

  const defer = db.transaction((id: number, notBefore: number, reason: string): MemoryJob | null =>
    jobOf(sql.defer.get(reason, notBefore, clock(), id)),
  );

  const recoverAfterRestart = db.transaction((): number => sql.recover.run(clock()).changes);

  const recordExtraction = db.transaction(record);

  return {
    enqueue: (sessionId, reason, options) => enqueue.immediate(sessionId, reason, options?.dueNow === true),
    claimNext: (now, options) => claimNext.immediate(now, options?.requestedOnly === true),
    finish: (id, extraction) => finish.immediate(id, extraction),
    fail: (id, error, options) => fail.immediate(id, error, options),
    defer: (id, notBefore, reason) => defer.immediate(id, notBefore, reason),
    recoverAfterRestart: () => recoverAfterRestart.immediate(),
    get: (id) => jobOf(sql.get.get(id)),
    list({ states = JOB_STATES, limit = DEFAULT_LIST_LIMIT } = {}) {
      return (sql.list.all(JSON.stringify(states), limit) as JobRow[]).map(jobFromRow);
    },
    counts() {
      const counts: Record<JobState, number> = { queued: 0, running: 0, deferred: 0, done: 0, failed: 0 };
      for (const row of sql.counts.all() as { state: JobState; n: number }[]) counts[row.state] = row.n;
      return counts;
    },
    nextDue(options) {
      return (sql.earliest.get(options?.requestedOnly === true ? 1 : 0) as { at: number | null }).at;
    },
    wake(sessionId) {
      const now = clock();
      return sql.wake.run(now, now, sessionId, now).changes > 0;
    },
    spend,
    writers,
    lastExtraction(sessionId) {
      const row = sql.lastExtraction.get(sessionId) as ExtractionRow | undefined;
      return row === undefined ? null : extractionFromRow(row);
    },
    recordExtraction: (extraction) => recordExtraction.immediate(extraction),
  };
}
