/**
 * What the usage book answers (book.ts): the rows a report reads (sums by day, group and quarter
 * hour) and the counted responses with their instant, for the block view. Kept apart from the
 * book's write side, which is most of book.ts.
 */
import type { Usage } from '../../shared/transcript/types.js';

export interface BookFile {
  id: number;
  path: string;
  project: string;
  sessionId: string;
}

/** Summed counts of one model in some group. */
export interface SumsRow {
  model: string;
  responses: number;
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
  cache_5m: number;
  cache_1h: number;
}

/** A model's counts on one day: `day` indexes the bounds it was asked for. */
export interface DayRow extends SumsRow {
  day: number;
}

/** A model's counts in one project. */
export interface GroupRow extends SumsRow {
  project: string;
}

export interface SlotRow {
  slot: number;
  project: string;
  model: string;
  responses: number;
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
  cache_5m: number;
  cache_1h: number;
}

/** A counted response and its entry's timestamp as the index holds it (null when the entry is gone). */
export interface TimedRow {
  slot: number;
  timestamp: string | null;
  model: string;
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
  cache_5m: number;
  cache_1h: number;
}

/** A row's token counts as a Usage (the price and the block fold read them so). */
export function usageOfRow(row: Omit<SumsRow, 'model' | 'responses'>): Usage {
  return {
    input: row.input,
    output: row.output,
    cacheCreation: row.cache_creation,
    cacheRead: row.cache_read,
    cache5m: row.cache_5m,
    cache1h: row.cache_1h,
  };
}
