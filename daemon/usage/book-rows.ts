/**
 * What the usage book answers (book-reads.ts): the rows a report reads (sums by day, group and
 * quarter hour) and the counted responses with their instant, for the block view.
 */
import type { Usage } from '../../shared/transcript/types.js';

export interface BookFile {
  id: number;
  path: string;
  project: string;
  sessionId: string;
  /** '' for this machine's transcript, else the device id of the machine it came from (files.device). */
  device: string;
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

/** A model's counts in one project, of one device ('' is this machine). */
export interface GroupRow extends SumsRow {
  project: string;
  device: string;
}

export interface SlotRow {
  slot: number;
  project: string;
  model: string;
  /** The device of the counted entries' files: '' for this machine. */
  device: string;
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
