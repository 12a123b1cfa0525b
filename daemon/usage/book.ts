/**
 * The usage book (migration 14): each file's best entry of each API response, one of them marked
 * as the entry that counts across files (rank.ts decides), and the counted usage summed by quarter
 * hour, project and model (`usage_slots`), which is all a report reads: a month of a heavy user's
 * history is a few thousand rows, read in milliseconds. Entries are kept by file (a slice's rows of
 * one file land together; only the key index takes scattered writes). Folding is idempotent and
 * order-free, so the follower (follower.ts) may fold the same entries again, and files in any order,
 * and get the same book. Callers run every method inside their transaction.
 */
import type Database from 'better-sqlite3';
import { EARLIEST_MS } from '../../shared/transcript/timestamp.js';
import type { Usage } from '../../shared/transcript/types.js';
import type { BookFile, DayRow, GroupRow, SlotRow, TimedRow } from './book-rows.js';
import { SLOT_MS } from './days.js';
import { type Candidate, candidateOf, outranks, outranksInFile, type Placed, type ResponseEntry } from './rank.js';

export type { BookFile, DayRow, GroupRow, SlotRow, SumsRow, TimedRow } from './book-rows.js';

/** Keys per lookup (a JSON array bound once): one statement for many responses. */
const KEYS_PER_QUERY = 500;
const CANDIDATE_COLUMNS = 13;
const CANDIDATE_ROW = `(${Array.from({ length: CANDIDATE_COLUMNS }, () => '?').join(', ')})`;
/** Rows per multi-row INSERT: a statement step per row costs more than binding one (see entry-row.ts). */
const CANDIDATE_BATCH = 32;
/** Unbounded window ends, as bound parameters. */
/**
 * The slots a report reads when its window is open: those of good timestamps (timestamp.ts) up to
 * the last day of year 9999. A book written before timestamps were validated can hold a slot of
 * `+275760-09-13`, whose day no calendar can name: never read (migration 17 takes it back).
 */
const FIRST_SLOT = Math.floor(EARLIEST_MS / SLOT_MS);
const LAST_SLOT = Math.floor(Date.UTC(9999, 11, 31) / SLOT_MS);

interface CandidateRow {
  key: string;
  file_id: number;
  offset: number;
  slot: number;
  sidechain: number;
  model: string;
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
  cache_5m: number;
  cache_1h: number;
  /** 1 for the entry that counts for its response. */
  counted: number;
}

interface PlacedRow extends CandidateRow {
  path: string;
  project: string;
}

export interface UsageBook {
  /** Folds entries of one file (any of them, in any order, any number of times). */
  fold(file: BookFile, entries: readonly ResponseEntry[]): void;
  /** Forgets what a file holds: its rows are replaced (a truncated or rewritten transcript) or removed. */
  dropFile(fileId: number): void;
  /** Forgets the files the index no longer has (a forgotten session); returns how many. */
  dropOrphans(): number;
  /** The counted usage of the slots in [fromSlot, toSlot), of one project folder or all. */
  slots(fromSlot: number | null, toSlot: number | null, project: string | null): SlotRow[];
  /** Counts by model of each day, days given by their bounds in slots (day i is [bounds[i], bounds[i + 1])). */
  byDay(bounds: readonly number[], project: string | null): DayRow[];
  /** Counts by project and model of the slots in [fromSlot, toSlot). */
  byProject(fromSlot: number | null, toSlot: number | null, project: string | null): GroupRow[];
  /**
   * A page of the counted responses of the slots in [fromSlot, toSlot), with their entry's
   * timestamp (blocks need the instant), by slot: whole slots of at most `limit` rows from
   * fromSlot on, or the one slot fromSlot when it alone holds more. `next` is the slot the next
   * page starts at, null after the last.
   */
  responses(
    fromSlot: number | null,
    toSlot: number | null,
    project: string | null,
    limit: number,
  ): { rows: TimedRow[]; next: number | null };
  /**
   * One session's counted responses (every file of it: the main agent's and the sub-agents') from
   * `fromSlot` on, with their entry's timestamp: a few slots through the slot index, then the files.
   */
  sessionResponses(sessionId: string, fromSlot: number): TimedRow[];
  /** The first and last slot with usage, of one project folder or all. */
  extent(project: string | null): { first: number; last: number } | null;
}

const usageOf = (row: CandidateRow): Usage => ({
  input: row.input,
  output: row.output,
  cacheCreation: row.cache_creation,
  cacheRead: row.cache_read,
  cache5m: row.cache_5m,
  cache1h: row.cache_1h,
});

const candidateFromRow = (row: CandidateRow): Candidate => ({
  key: row.key,
  offset: row.offset,
  slot: row.slot,
  sidechain: row.sidechain === 1,
  model: row.model,
  usage: usageOf(row),
});

const placedFromRow = (row: PlacedRow): Placed & { fileId: number; project: string } => ({
  candidate: candidateFromRow(row),
  path: row.path,
  fileId: row.file_id,
  project: row.project,
});

/** Keys as the JSON array json_each reads: 64-bit integers exactly (a JS number would round them). */
const keyArray = (keys: readonly string[]) => `[${keys.join(',')}]`;

function* chunksOf<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

/** Changes to usage_slots gathered over one fold, written once per slot, project and model. */
function slotChanges() {
  const changes = new Map<string, SlotRow>();
  return {
    add(candidate: Candidate, project: string, sign: 1 | -1) {
      const id = `${candidate.slot}\0${project}\0${candidate.model}`;
      let row = changes.get(id);
      if (row === undefined) {
        row = {
          slot: candidate.slot,
          project,
          model: candidate.model,
          responses: 0,
          input: 0,
          output: 0,
          cache_creation: 0,
          cache_read: 0,
          cache_5m: 0,
          cache_1h: 0,
        };
        changes.set(id, row);
      }
      const { usage } = candidate;
      row.responses += sign;
      row.input += sign * usage.input;
      row.output += sign * usage.output;
      row.cache_creation += sign * usage.cacheCreation;
      row.cache_read += sign * usage.cacheRead;
      row.cache_5m += sign * usage.cache5m;
      row.cache_1h += sign * usage.cache1h;
    },
    rows: () => changes.values(),
  };
}

export function createUsageBook(db: Database.Database): UsageBook {
  const putFile = db.prepare(
    'INSERT INTO usage_files (id, path, project) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET path = excluded.path, project = excluded.project',
  );
  const fileRow = db.prepare('SELECT project FROM usage_files WHERE id = ?').pluck();
  const dropFileRow = db.prepare('DELETE FROM usage_files WHERE id = ?');
  const orphans = db
    .prepare('SELECT u.id FROM usage_files u LEFT JOIN files f ON f.id = u.id WHERE f.id IS NULL OR f.path != u.path')
    .pluck();
  const columns =
    'CAST(c.key AS TEXT) AS key, c.file_id, c.offset, c.slot, c.sidechain, c.model, c.input, c.output, c.cache_creation, c.cache_read, c.cache_5m, c.cache_1h, c.counted';
  /** This file's entries of some responses. */
  const storedOf = db.prepare(
    `SELECT ${columns} FROM usage_candidates c WHERE c.file_id = ? AND c.key IN (SELECT value FROM json_each(?))`,
  );
  /** The entries that count for some responses, with where they stand (through the key index). */
  const countingOf = db.prepare(`
    SELECT ${columns}, f.path, f.project FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    WHERE c.counted = 1 AND c.key IN (SELECT value FROM json_each(?))`);
  /**
   * Every file's entry of some responses: only to find an heir when the one that counts goes (a
   * history replayed in thousands of files has thousands of entries per response).
   */
  const candidatesOf = db.prepare(`
    SELECT ${columns}, f.path, f.project FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    WHERE c.key IN (SELECT value FROM json_each(?))`);
  const countedOf = db.prepare(`SELECT ${columns} FROM usage_candidates c WHERE c.file_id = ? AND c.counted = 1`);
  const dropCandidates = db.prepare('DELETE FROM usage_candidates WHERE file_id = ?');
  const setCounted = db.prepare('UPDATE usage_candidates SET counted = ? WHERE file_id = ? AND key = ?');
  const putCandidate = db.prepare(`INSERT OR REPLACE INTO usage_candidates VALUES ${CANDIDATE_ROW}`);
  const putCandidates = db.prepare(
    `INSERT OR REPLACE INTO usage_candidates VALUES ${Array.from({ length: CANDIDATE_BATCH }, () => CANDIDATE_ROW).join(', ')}`,
  );
  const addSlot = db.prepare(`
    INSERT INTO usage_slots (slot, project, model, responses, input, output, cache_creation, cache_read, cache_5m, cache_1h)
    VALUES (@slot, @project, @model, @responses, @input, @output, @cache_creation, @cache_read, @cache_5m, @cache_1h)
    ON CONFLICT (slot, project, model) DO UPDATE SET responses = responses + excluded.responses, input = input + excluded.input,
      output = output + excluded.output, cache_creation = cache_creation + excluded.cache_creation, cache_read = cache_read + excluded.cache_read,
      cache_5m = cache_5m + excluded.cache_5m, cache_1h = cache_1h + excluded.cache_1h`);
  const dropEmptySlot = db.prepare(
    'DELETE FROM usage_slots WHERE slot = @slot AND project = @project AND model = @model AND responses <= 0',
  );
  const slotsIn = db.prepare('SELECT * FROM usage_slots WHERE slot >= ? AND slot < ? ORDER BY slot');
  const SUMS =
    'sum(s.responses) AS responses, sum(s.input) AS input, sum(s.output) AS output, sum(s.cache_creation) AS cache_creation, sum(s.cache_read) AS cache_read, sum(s.cache_5m) AS cache_5m, sum(s.cache_1h) AS cache_1h';
  // Summed by SQLite over the slots' primary key, a range per day: a month of a heavy user's rows in a millisecond or two.
  const byDaySql = (ofProject: boolean) => `
    WITH bounds (day, start, stop) AS (SELECT key, value, lead(value) OVER (ORDER BY key) FROM json_each(?))
    SELECT b.day AS day, s.model AS model, ${SUMS} FROM bounds b JOIN usage_slots s ON s.slot >= b.start AND s.slot < b.stop
    WHERE b.stop IS NOT NULL${ofProject ? ' AND s.project = ?' : ''} GROUP BY b.day, s.model`;
  const byDayAll = db.prepare(byDaySql(false));
  const byDayOfProject = db.prepare(byDaySql(true));
  const byProjectAll = db.prepare(
    `SELECT s.project AS project, s.model AS model, ${SUMS} FROM usage_slots s WHERE s.slot >= ? AND s.slot < ? GROUP BY s.project, s.model`,
  );
  const byProjectOne = db.prepare(
    `SELECT s.project AS project, s.model AS model, ${SUMS} FROM usage_slots s WHERE s.slot >= ? AND s.slot < ? AND s.project = ? GROUP BY s.model`,
  );
  const extentAll = db.prepare(
    'SELECT min(slot) AS first, max(slot) AS last FROM usage_slots WHERE slot >= ? AND slot <= ?',
  );
  const extentOfProject = db.prepare(
    'SELECT min(slot) AS first, max(slot) AS last FROM usage_slots WHERE slot >= ? AND slot <= ? AND project = ?',
  );
  // Through the counted candidates' slot index (migration 25); each entry's timestamp is a lookup by its key.
  const timedSql = (ofProject: boolean) => `
    SELECT c.slot, e.timestamp, c.model, c.input, c.output, c.cache_creation, c.cache_read, c.cache_5m, c.cache_1h
    FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    LEFT JOIN entries e ON e.file_id = c.file_id AND e.offset = c.offset
    WHERE c.counted = 1 AND c.slot >= ? AND c.slot < ?${ofProject ? ' AND f.project = ?' : ''}
    ORDER BY c.slot LIMIT ?`;
  const timedAll = db.prepare(timedSql(false));
  const timedOfProject = db.prepare(timedSql(true));
  const timed = (from: number, to: number, project: string | null, limit: number) =>
    (project === null ? timedAll.all(from, to, limit) : timedOfProject.all(from, to, project, limit)) as TimedRow[];
  const ofSession = db.prepare(`
    SELECT c.slot, e.timestamp, c.model, c.input, c.output, c.cache_creation, c.cache_read, c.cache_5m, c.cache_1h
    FROM usage_candidates c JOIN files f ON f.id = c.file_id
    LEFT JOIN entries e ON e.file_id = c.file_id AND e.offset = c.offset
    WHERE c.counted = 1 AND c.slot >= ? AND c.slot <= ? AND f.session_id = ?`);
  const slotsOfProject = db.prepare(
    'SELECT * FROM usage_slots WHERE slot >= ? AND slot < ? AND project = ? ORDER BY slot',
  );

  const writeCandidates = (fileId: number, rows: readonly { candidate: Candidate; counted: boolean }[]) => {
    const params: (string | number | bigint)[] = [];
    for (const { candidate, counted } of rows) {
      const { key, offset, slot, sidechain, model, usage } = candidate;
      params.push(
        fileId,
        BigInt(key),
        offset,
        slot,
        sidechain ? 1 : 0,
        model,
        usage.input,
        usage.output,
        usage.cacheCreation,
        usage.cacheRead,
        usage.cache5m,
        usage.cache1h,
        counted ? 1 : 0,
      );
      if (params.length === CANDIDATE_BATCH * CANDIDATE_COLUMNS) {
        putCandidates.run(params);
        params.length = 0;
      }
    }
    for (const row of [...chunksOf(params, CANDIDATE_COLUMNS)]) putCandidate.run(row);
  };

  const writeSlots = (changes: ReturnType<typeof slotChanges>) => {
    for (const row of changes.rows()) {
      addSlot.run(row);
      if (row.responses < 0) dropEmptySlot.run({ slot: row.slot, project: row.project, model: row.model });
    }
  };

  const dropFile = (fileId: number) => {
    const project = fileRow.get(fileId) as string | undefined;
    if (project === undefined) return;
    const counted = (countedOf.all(fileId) as CandidateRow[]).map(candidateFromRow);
    dropCandidates.run(fileId);
    dropFileRow.run(fileId);
    const changes = slotChanges();
    for (const chunk of chunksOf(counted, KEYS_PER_QUERY)) {
      // The next best entry of each response this file counted, in the files that remain.
      const heirs = new Map<string, Placed & { fileId: number; project: string }>();
      for (const row of candidatesOf.all(keyArray(chunk.map((candidate) => candidate.key))) as PlacedRow[]) {
        const placed = placedFromRow(row);
        const best = heirs.get(row.key);
        if (best === undefined || outranks(placed, best)) heirs.set(row.key, placed);
      }
      for (const candidate of chunk) {
        changes.add(candidate, project, -1);
        const heir = heirs.get(candidate.key);
        if (heir === undefined) continue;
        setCounted.run(1, heir.fileId, BigInt(candidate.key));
        changes.add(heir.candidate, heir.project, 1);
      }
    }
    writeSlots(changes);
  };

  return {
    fold(file, entries) {
      const best = new Map<string, Candidate>();
      for (const entry of entries) {
        const candidate = candidateOf(entry, file.sessionId, file.path);
        if (candidate === null) continue;
        const seen = best.get(candidate.key);
        if (seen === undefined || outranksInFile(candidate, seen)) best.set(candidate.key, candidate);
      }
      if (best.size === 0) return;
      putFile.run(file.id, file.path, file.project);
      const changes = slotChanges();
      for (const keys of chunksOf([...best.keys()], KEYS_PER_QUERY)) {
        // What the book holds of these responses: this file's entry, and the one that counts.
        const array = keyArray(keys);
        const stored = new Map(
          (storedOf.all(file.id, array) as CandidateRow[]).map((row) => [row.key, candidateFromRow(row)]),
        );
        const counting = new Map((countingOf.all(array) as PlacedRow[]).map((row) => [row.key, placedFromRow(row)]));
        const writes: { candidate: Candidate; counted: boolean }[] = [];
        for (const key of keys) {
          const candidate = best.get(key) as Candidate;
          const before = stored.get(key);
          if (before !== undefined && !outranksInFile(candidate, before)) continue;
          const winner = counting.get(key);
          // This file's entry counts when none did, when the file's own counted (and this one beats it), or when it beats another file's.
          const counts =
            winner === undefined || winner.fileId === file.id || outranks({ candidate, path: file.path }, winner);
          if (counts && winner !== undefined) {
            changes.add(winner.candidate, winner.project, -1);
            if (winner.fileId !== file.id) setCounted.run(0, winner.fileId, BigInt(key));
          }
          if (counts) changes.add(candidate, file.project, 1);
          writes.push({ candidate, counted: counts });
        }
        writeCandidates(file.id, writes);
      }
      writeSlots(changes);
    },
    dropFile,
    dropOrphans() {
      const gone = orphans.all() as number[];
      for (const fileId of gone) dropFile(fileId);
      return gone.length;
    },
    byDay(bounds, project) {
      const array = JSON.stringify(bounds);
      return (project === null ? byDayAll.all(array) : byDayOfProject.all(array, project)) as DayRow[];
    },
    byProject(fromSlot, toSlot, project) {
      const range = [Math.max(fromSlot ?? FIRST_SLOT, FIRST_SLOT), Math.min(toSlot ?? LAST_SLOT, LAST_SLOT + 1)];
      return (project === null ? byProjectAll.all(...range) : byProjectOne.all(...range, project)) as GroupRow[];
    },
    extent(project) {
      const row = (
        project === null ? extentAll.get(FIRST_SLOT, LAST_SLOT) : extentOfProject.get(FIRST_SLOT, LAST_SLOT, project)
      ) as { first: number | null; last: number | null };
      return row.first === null || row.last === null ? null : { first: row.first, last: row.last };
    },
    responses(fromSlot, toSlot, project, limit) {
      const from = Math.max(fromSlot ?? FIRST_SLOT, FIRST_SLOT);
      const to = Math.min(toSlot ?? LAST_SLOT, LAST_SLOT + 1);
      const rows = timed(from, to, project, limit + 1);
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
      return { rows: timed(from, from + 1, project, -1), next: from + 1 < to ? from + 1 : null };
    },
    sessionResponses(sessionId, fromSlot) {
      return ofSession.all(Math.max(fromSlot, FIRST_SLOT), LAST_SLOT, sessionId) as TimedRow[];
    },
    slots(fromSlot, toSlot, project) {
      const range = [Math.max(fromSlot ?? FIRST_SLOT, FIRST_SLOT), Math.min(toSlot ?? LAST_SLOT, LAST_SLOT + 1)];
      return (project === null ? slotsIn.all(...range) : slotsOfProject.all(...range, project)) as SlotRow[];
    },
  };
}
