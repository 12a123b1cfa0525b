/**
 * The usage book's read side (book.ts writes): the sums a report reads, by day, by group and by
 * quarter hour, and the counted responses with their instant, each of every project and device or
 * of one (a scope). Filters are named parameters (`@project`, `@device`), so that each query is
 * prepared once per combination of the filters it is asked with.
 */
import type Database from 'better-sqlite3';
import { EARLIEST_MS } from '../../shared/transcript/timestamp.js';
import type { DayRow, GroupRow, SlotRow, TimedRow } from './book-rows.js';
import { SLOT_MS } from './days.js';

/**
 * The slots a report reads when its window is open: those of good timestamps (timestamp.ts) up to
 * the last day of year 9999. A book written before timestamps were validated can hold a slot of
 * `+275760-09-13`, whose day no calendar can name: never read (migration 17 takes it back).
 */
const FIRST_SLOT = Math.floor(EARLIEST_MS / SLOT_MS);
const LAST_SLOT = Math.floor(Date.UTC(9999, 11, 31) / SLOT_MS);

/** What a read covers: one project folder or all, one device ('' is this machine) or all. */
export interface BookScope {
  project: string | null;
  device: string | null;
}

export const EVERYTHING: BookScope = { project: null, device: null };

export interface BookReads {
  /** The counted usage of the slots in [fromSlot, toSlot), with their project, model and device. */
  slots(fromSlot: number | null, toSlot: number | null, scope: BookScope): SlotRow[];
  /** Counts by model of each day, days given by their bounds in slots (day i is [bounds[i], bounds[i + 1])). */
  byDay(bounds: readonly number[], scope: BookScope): DayRow[];
  /** Counts by project, device and model of the slots in [fromSlot, toSlot). */
  groups(fromSlot: number | null, toSlot: number | null, scope: BookScope): GroupRow[];
  /**
   * A page of the counted responses of the slots in [fromSlot, toSlot), with their entry's
   * timestamp (blocks need the instant), by slot: whole slots of at most `limit` rows from
   * fromSlot on, or the one slot fromSlot when it alone holds more. `next` is the slot the next
   * page starts at, null after the last.
   */
  responses(
    fromSlot: number | null,
    toSlot: number | null,
    scope: BookScope,
    limit: number,
  ): { rows: TimedRow[]; next: number | null };
  /**
   * One session's counted responses (every file of it: the main agent's and the sub-agents') from
   * `fromSlot` on, with their entry's timestamp: a few slots through the slot index, then the files.
   */
  sessionResponses(sessionId: string, fromSlot: number): TimedRow[];
  /** The first and last slot with usage in the scope. */
  extent(scope: BookScope): { first: number; last: number } | null;
}

const SUMS =
  'sum(s.responses) AS responses, sum(s.input) AS input, sum(s.output) AS output, sum(s.cache_creation) AS cache_creation, sum(s.cache_read) AS cache_read, sum(s.cache_5m) AS cache_5m, sum(s.cache_1h) AS cache_1h';

/** The scope's filters on a table of `project` and `device` columns (the slots, or the files). */
const filtersOf = (scope: BookScope, table: string) =>
  `${scope.project === null ? '' : ` AND ${table}.project = @project`}${scope.device === null ? '' : ` AND ${table}.device = @device`}`;

/** A query of a scope, prepared once per combination of filters. */
function scoped(db: Database.Database, sql: (filters: (table: string) => string) => string) {
  const prepared = new Map<string, Database.Statement>();
  return (scope: BookScope): Database.Statement => {
    const id = `${scope.project === null}${scope.device === null}`;
    let statement = prepared.get(id);
    if (statement === undefined) {
      statement = db.prepare(sql((table) => filtersOf(scope, table)));
      prepared.set(id, statement);
    }
    return statement;
  };
}

/** A window's ends, null ones unbounded, kept to the slots a calendar can name. */
const rangeOf = (fromSlot: number | null, toSlot: number | null) => [
  Math.max(fromSlot ?? FIRST_SLOT, FIRST_SLOT),
  Math.min(toSlot ?? LAST_SLOT, LAST_SLOT + 1),
];

export function createBookReads(db: Database.Database): BookReads {
  const slotsIn = scoped(
    db,
    (and) => `SELECT * FROM usage_slots s WHERE s.slot >= ? AND s.slot < ?${and('s')} ORDER BY s.slot`,
  );
  // Summed by SQLite over the slots' primary key, a range per day: a month of a heavy user's rows in a millisecond or two.
  const byDay = scoped(
    db,
    (and) => `
    WITH bounds (day, start, stop) AS (SELECT key, value, lead(value) OVER (ORDER BY key) FROM json_each(?))
    SELECT b.day AS day, s.model AS model, ${SUMS} FROM bounds b JOIN usage_slots s ON s.slot >= b.start AND s.slot < b.stop
    WHERE b.stop IS NOT NULL${and('s')} GROUP BY b.day, s.model`,
  );
  const groups = scoped(
    db,
    (and) =>
      `SELECT s.project AS project, s.device AS device, s.model AS model, ${SUMS} FROM usage_slots s
       WHERE s.slot >= ? AND s.slot < ?${and('s')} GROUP BY s.project, s.device, s.model`,
  );
  const extent = scoped(
    db,
    (and) =>
      `SELECT min(s.slot) AS first, max(s.slot) AS last FROM usage_slots s WHERE s.slot >= ? AND s.slot <= ?${and('s')}`,
  );
  // Through the counted candidates' slot index (migration 25); each entry's timestamp is a lookup by its key.
  const timed = scoped(
    db,
    (and) => `
    SELECT c.slot, e.timestamp, c.model, c.input, c.output, c.cache_creation, c.cache_read, c.cache_5m, c.cache_1h
    FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    LEFT JOIN entries e ON e.file_id = c.file_id AND e.offset = c.offset
    WHERE c.counted = 1 AND c.slot >= ? AND c.slot < ?${and('f')}
    ORDER BY c.slot LIMIT ?`,
  );
  const timedOf = (from: number, to: number, scope: BookScope, limit: number) =>
    timed(scope).all(from, to, limit, scope) as TimedRow[];
  const ofSession = db.prepare(`
    SELECT c.slot, e.timestamp, c.model, c.input, c.output, c.cache_creation, c.cache_read, c.cache_5m, c.cache_1h
    FROM usage_candidates c JOIN files f ON f.id = c.file_id
    LEFT JOIN entries e ON e.file_id = c.file_id AND e.offset = c.offset
    WHERE c.counted = 1 AND c.slot >= ? AND c.slot <= ? AND f.session_id = ?`);

  return {
    slots: (fromSlot, toSlot, scope) => slotsIn(scope).all(...rangeOf(fromSlot, toSlot), scope) as SlotRow[],
    byDay: (bounds, scope) => byDay(scope).all(JSON.stringify(bounds), scope) as DayRow[],
    groups: (fromSlot, toSlot, scope) => groups(scope).all(...rangeOf(fromSlot, toSlot), scope) as GroupRow[],
    extent(scope) {
      const row = extent(scope).get(FIRST_SLOT, LAST_SLOT, scope) as { first: number | null; last: number | null };
      return row.first === null || row.last === null ? null : { first: row.first, last: row.last };
    },
    responses(fromSlot, toSlot, scope, limit) {
      const [from, to] = rangeOf(fromSlot, toSlot) as [number, number];
      const rows = timedOf(from, to, scope, limit + 1);
      if (rows.length <= limit) return { rows, next: null };
      // More than a page: the last slot read may go on; it starts the next page.
      const lastSlot = (rows[limit - 1] as TimedRow).slot;
      if (lastSlot > from) {
        let end = limit;
        while (end > 0 && (rows[end - 1] as TimedRow).slot === lastSlot) end -= 1;
        rows.length = end;
        return { rows, next: lastSlot };
      }
      // One slot holds more than a page (thousands of responses in 15 minutes): read it whole.
      return { rows: timedOf(from, from + 1, scope, -1), next: from + 1 < to ? from + 1 : null };
    },
    sessionResponses: (sessionId, fromSlot) =>
      ofSession.all(Math.max(fromSlot, FIRST_SLOT), LAST_SLOT, sessionId) as TimedRow[],
  };
}
