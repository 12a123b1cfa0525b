/** `memory.*` results (session memory: its summary, its lock) and extraction in `daemon.status`. */
import { arrayOf, bool, looseObject, nullable, num, optional, recordOf, type Schema, str } from './schema.js';

/** `memory.summary` and `memory.extract`: a session's summary.md and its last extraction. */
export interface MemorySummaryResult {
  sessionId: string;
  path: string;
  /** Null when the session has no summary.md yet. */
  text: string | null;
  /** The last message the summary covers. */
  lastUuid: string | null;
  extractedAt: string | null;
  summarizer: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export interface MemoryLockResult {
  owner: string;
  whileActive?: boolean;
  /** Epoch ms when the lock lapses unless renewed. */
  expiresAt: number;
}

/** What memd's model calls are for, each kind apart in the spend ledger (issue 32). */
export const SPEND_KINDS = ['extraction', 'compaction', 'handoff'] as const;
export type SpendKind = (typeof SPEND_KINDS)[number];

/** Session-memory extraction in `daemon.status`. */
export interface ExtractionStatus {
  /** Jobs by state (queued, running, deferred, done, failed). */
  jobs: Record<string, number>;
  /** Sessions being extracted now. */
  running: string[];
  /** Locks main agents hold through memory.lock. */
  locks: { sessionDir: string; owner: string; expiresAt: number }[];
  /** `memory.pause`: background extraction waits (requested extractions still run). */
  paused: boolean;
  /**
   * The daily cap on memd's API spend, every kind counted (`spentTodayUsd`); `reached`: background
   * extraction waits for tomorrow (local time). `byKind`: today's USD per kind (an addition, issue
   * 32; a memd before it counted extraction only, and sends none).
   */
  budget: { dailyUsd: number; spentTodayUsd: number; reached: boolean; byKind?: Record<SpendKind, number> };
  /** Sessions by their model calls' spend today, every kind, most first (at most 10). */
  spentToday: { sessionId: string; usd: number }[];
}

export const memorySummaryResultSchema: Schema<MemorySummaryResult> = looseObject({
  sessionId: str(),
  path: str(),
  text: nullable(str()),
  lastUuid: nullable(str()),
  extractedAt: nullable(str()),
  summarizer: nullable(str()),
  inputTokens: num(),
  outputTokens: num(),
  costUsd: nullable(num()),
});

export const extractionStatusSchema: Schema<ExtractionStatus> = looseObject({
  jobs: recordOf(num()),
  running: arrayOf(str()),
  locks: arrayOf(looseObject({ sessionDir: str(), owner: str(), expiresAt: num() })),
  paused: bool(),
  budget: looseObject({
    dailyUsd: num(),
    spentTodayUsd: num(),
    reached: bool(),
    byKind: optional(looseObject({ extraction: num(), compaction: num(), handoff: num() })),
  }),
  spentToday: arrayOf(looseObject({ sessionId: str(), usd: num() })),
});
