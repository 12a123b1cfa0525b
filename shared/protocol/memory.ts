/** `memory.*` results (session memory: its summary, its lock) and extraction in `daemon.status`. */
import { arrayOf, bool, looseObject, nullable, num, recordOf, type Schema, str } from './schema.js';

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
  /** The daily cap on background extraction's spend; `reached`: it waits for tomorrow (local time). */
  budget: { dailyUsd: number; spentTodayUsd: number; reached: boolean };
  /** Sessions by their extractions' spend today, most first (at most 10). */
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
  budget: looseObject({ dailyUsd: num(), spentTodayUsd: num(), reached: bool() }),
  spentToday: arrayOf(looseObject({ sessionId: str(), usd: num() })),
});
