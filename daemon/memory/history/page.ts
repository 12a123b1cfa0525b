/**
 * One page of `history.jsonl`, newest first: lines are read from the end of the file and reading
 * stops once the page is full, so the newest prompts cost the same in a year-old history as in a
 * new one.
 */
import { createMatcher, type HistoryFilter, type HistoryRecord, parseHistoryLine } from './entry.js';
import { type TailLineOptions, TailLineReader } from './tail-lines.js';

export interface HistoryPage {
  /** Newest first. */
  records: HistoryRecord[];
  /** False only when no older matching entry exists. */
  hasMore: boolean;
  badLines: number;
  /** Bytes read from the file, to show the tail reading stays small. */
  bytesRead: number;
}

export interface PageOptions extends TailLineOptions {
  signal?: AbortSignal;
}

const BLANK = /^\s*$/;
/** A line with nothing on it: not an entry, but not damage either. */
const SKIP = 'blank';

function parseLine(line: Buffer): HistoryRecord | null | typeof SKIP {
  const text = line.toString('utf8');
  return BLANK.test(text) ? SKIP : parseHistoryLine(text);
}

/**
 * Bad lines are counted on the page whose time range they fall in: one seen before the first
 * entry older than `before` sits between the previous page's last entry and this page's, so it is
 * held back until an older entry (or the start of the file) shows it belongs here. A page that
 * repeats the newer part of the file to reach `before` so does not count its bad lines again.
 */
class BadLineTally {
  total = 0;
  private held = 0;

  bad(): void {
    this.held++;
  }

  /** An entry newer than `before`: the bad lines held so far belong to an earlier page. */
  newer(): void {
    this.held = 0;
  }

  /** An entry of this page's range, or the start of the file. */
  inRange(): void {
    this.total += this.held;
    this.held = 0;
  }
}

/**
 * A page that continues must not end inside a run of entries of the same millisecond: the next
 * page asks for entries strictly older and would skip the rest of the run. The run moves whole to
 * the next page, unless it fills this page by itself.
 */
function dropLastRun(records: HistoryRecord[]): HistoryRecord[] {
  const lastMs = records.at(-1)?.timestampMs;
  let keep = records.length;
  while (keep > 0 && records[keep - 1]?.timestampMs === lastMs) keep--;
  return keep === 0 ? records : records.slice(0, keep);
}

export async function readHistoryPage(
  path: string,
  filter: HistoryFilter,
  limit: number,
  options: PageOptions = {},
): Promise<HistoryPage> {
  const reader = await TailLineReader.open(path, options);
  if (reader === null) return { records: [], hasMore: false, badLines: 0, bytesRead: 0 };
  const matches = createMatcher(filter);
  const tally = new BadLineTally();
  const records: HistoryRecord[] = [];
  try {
    while (records.length < limit) {
      options.signal?.throwIfAborted();
      const line = await reader.next();
      if (line === null) {
        tally.inRange();
        break;
      }
      const record = parseLine(line);
      if (record === SKIP) continue;
      if (record === null) tally.bad();
      else if (filter.beforeMs !== undefined && record.timestampMs >= filter.beforeMs) tally.newer();
      else {
        tally.inRange();
        if (matches(record)) records.push(record);
      }
    }
    const last = records.at(-1);
    const older =
      records.length === limit && last !== undefined
        ? await peekOlder(reader, matches, last.timestampMs, tally, options.signal)
        : NO_OLDER;
    return {
      records: older.sameMs ? dropLastRun(records) : records,
      hasMore: older.more,
      badLines: tally.total + reader.longLines,
      bytesRead: reader.bytesRead,
    };
  } finally {
    await reader.close();
  }
}

interface OlderMatch {
  /** False only when no older match exists. */
  more: boolean;
  /** The next match shares the page's last millisecond. */
  sameMs: boolean;
}

const NO_OLDER: OlderMatch = { more: false, sameMs: false };

/**
 * Looks past a full page for the next match, reading only as far as it must: through the lines
 * of the page's last millisecond (a run the page must not split) and the lines already read.
 * Beyond that, unread data means an older match may exist. Bad lines seen on the way belong to
 * the next page, unless there is none.
 */
async function peekOlder(
  reader: TailLineReader,
  matches: (record: HistoryRecord) => boolean,
  lastMs: number,
  tally: BadLineTally,
  signal: AbortSignal | undefined,
): Promise<OlderMatch> {
  let pastLastMs = false;
  // Each pass consumes a line; the reader ends at the start of the file.
  for (;;) {
    if (pastLastMs && !reader.hasBufferedLine) return { more: !reader.done, sameMs: false };
    signal?.throwIfAborted();
    const line = await reader.next();
    if (line === null) {
      tally.inRange();
      return NO_OLDER;
    }
    const record = parseLine(line);
    if (record === SKIP) continue;
    if (record === null) {
      tally.bad();
      continue;
    }
    if (matches(record)) return { more: true, sameMs: record.timestampMs === lastMs };
    if (record.timestampMs < lastMs) pastLastMs = true;
  }
}
