/**
 * The usage book (migration 14): each file's best entry of each API response, one of them marked
 * as the entry that counts across files (rank.ts decides), and the counted usage summed by quarter
 * hour, project, model and device (`usage_slots`, migration 31), which is all a report reads
 * (book-reads.ts): a month of a heavy user's history is a few thousand rows, read in milliseconds.
 * Entries are kept by file (a slice's rows of one file land together; only the key index takes
 * scattered writes). Folding is idempotent and order-free, so the follower (follower.ts) may fold
 * the same entries again, and files in any order, and get the same book. Callers run every method
 * inside their transaction.
 */
import type Database from 'better-sqlite3';
import type { Usage } from '../../shared/transcript/types.js';
import { type BookReads, createBookReads } from './book-reads.js';
import type { BookFile, SlotRow } from './book-rows.js';
import { type Candidate, candidateOf, outranks, outranksInFile, type Placed, type ResponseEntry } from './rank.js';

export { type BookScope, EVERYTHING } from './book-reads.js';
export type { BookFile, DayRow, GroupRow, SlotRow, SumsRow, TimedRow } from './book-rows.js';

/** Keys per lookup (a JSON array bound once): one statement for many responses. */
const KEYS_PER_QUERY = 500;
const CANDIDATE_COLUMNS = 13;
const CANDIDATE_ROW = `(${Array.from({ length: CANDIDATE_COLUMNS }, () => '?').join(', ')})`;
/** Rows per multi-row INSERT: a statement step per row costs more than binding one (see entry-row.ts). */
const CANDIDATE_BATCH = 32;

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
  /** As usage_files keeps it: '' for this machine's file. */
  device: string;
}

/** Where a candidate's counts go in usage_slots: its file's project and device ('' for this machine). */
interface Home {
  project: string;
  device: string;
}

/** A candidate of a file the book holds, ranked and filed. */
type Stored = Placed & { fileId: number; home: Home };

/** This machine as the book ranks its files among other machines' (rank.ts). */
export interface BookDeps {
  /** This machine's device id (daemon/sync/device.ts). */
  deviceId: string;
}

export interface UsageBook extends BookReads {
  /** Folds entries of one file (any of them, in any order, any number of times). */
  fold(file: BookFile, entries: readonly ResponseEntry[]): void;
  /** Forgets what a file holds: its rows are replaced (a truncated or rewritten transcript) or removed. */
  dropFile(fileId: number): void;
  /** Forgets the files the index no longer has (a forgotten session); returns how many. */
  dropOrphans(): number;
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

/** Keys as the JSON array json_each reads: 64-bit integers exactly (a JS number would round them). */
const keyArray = (keys: readonly string[]) => `[${keys.join(',')}]`;

function* chunksOf<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

/** Changes to usage_slots gathered over one fold, written once per slot, project, model and device. */
function slotChanges() {
  const changes = new Map<string, SlotRow>();
  return {
    add(candidate: Candidate, home: Home, sign: 1 | -1) {
      const { project, device } = home;
      const id = `${candidate.slot}\0${project}\0${candidate.model}\0${device}`;
      let row = changes.get(id);
      if (row === undefined) {
        row = {
          slot: candidate.slot,
          project,
          model: candidate.model,
          device,
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

export function createUsageBook(db: Database.Database, deps: BookDeps): UsageBook {
  /** The id a file's device is ranked by: this machine's own for its files (kept as ''). */
  const rankedDevice = (device: string) => (device === '' ? deps.deviceId : device);
  const storedFromRow = (row: PlacedRow): Stored => ({
    candidate: candidateFromRow(row),
    path: row.path,
    device: rankedDevice(row.device),
    fileId: row.file_id,
    home: { project: row.project, device: row.device },
  });

  const putFile = db.prepare(`
    INSERT INTO usage_files (id, path, project, device) VALUES (?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET path = excluded.path, project = excluded.project, device = excluded.device`);
  const fileRow = db.prepare('SELECT project, device FROM usage_files WHERE id = ?');
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
    SELECT ${columns}, f.path, f.project, f.device FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    WHERE c.counted = 1 AND c.key IN (SELECT value FROM json_each(?))`);
  /**
   * Every file's entry of some responses: only to find an heir when the one that counts goes (a
   * history replayed in thousands of files has thousands of entries per response).
   */
  const candidatesOf = db.prepare(`
    SELECT ${columns}, f.path, f.project, f.device FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    WHERE c.key IN (SELECT value FROM json_each(?))`);
  const countedOf = db.prepare(`SELECT ${columns} FROM usage_candidates c WHERE c.file_id = ? AND c.counted = 1`);
  const dropCandidates = db.prepare('DELETE FROM usage_candidates WHERE file_id = ?');
  const setCounted = db.prepare('UPDATE usage_candidates SET counted = ? WHERE file_id = ? AND key = ?');
  const putCandidate = db.prepare(`INSERT OR REPLACE INTO usage_candidates VALUES ${CANDIDATE_ROW}`);
  const putCandidates = db.prepare(
    `INSERT OR REPLACE INTO usage_candidates VALUES ${Array.from({ length: CANDIDATE_BATCH }, () => CANDIDATE_ROW).join(', ')}`,
  );
  const addSlot = db.prepare(`
    INSERT INTO usage_slots (slot, project, model, device, responses, input, output, cache_creation, cache_read, cache_5m, cache_1h)
    VALUES (@slot, @project, @model, @device, @responses, @input, @output, @cache_creation, @cache_read, @cache_5m, @cache_1h)
    ON CONFLICT (slot, project, model, device) DO UPDATE SET responses = responses + excluded.responses, input = input + excluded.input,
      output = output + excluded.output, cache_creation = cache_creation + excluded.cache_creation, cache_read = cache_read + excluded.cache_read,
      cache_5m = cache_5m + excluded.cache_5m, cache_1h = cache_1h + excluded.cache_1h`);
  const dropEmptySlot = db.prepare(
    'DELETE FROM usage_slots WHERE slot = @slot AND project = @project AND model = @model AND device = @device AND responses <= 0',
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
      if (row.responses < 0) dropEmptySlot.run(row);
    }
  };

  const dropFile = (fileId: number) => {
    const home = fileRow.get(fileId) as Home | undefined;
    if (home === undefined) return;
    const counted = (countedOf.all(fileId) as CandidateRow[]).map(candidateFromRow);
    dropCandidates.run(fileId);
    dropFileRow.run(fileId);
    const changes = slotChanges();
    for (const chunk of chunksOf(counted, KEYS_PER_QUERY)) {
      // The next best entry of each response this file counted, in the files that remain.
      const heirs = new Map<string, Stored>();
      for (const row of candidatesOf.all(keyArray(chunk.map((candidate) => candidate.key))) as PlacedRow[]) {
        const stored = storedFromRow(row);
        const best = heirs.get(row.key);
        if (best === undefined || outranks(stored, best)) heirs.set(row.key, stored);
      }
      for (const candidate of chunk) {
        changes.add(candidate, home, -1);
        const heir = heirs.get(candidate.key);
        if (heir === undefined) continue;
        setCounted.run(1, heir.fileId, BigInt(candidate.key));
        changes.add(heir.candidate, heir.home, 1);
      }
    }
    writeSlots(changes);
  };

  return {
    ...createBookReads(db),
    fold(file, entries) {
      const best = new Map<string, Candidate>();
      for (const entry of entries) {
        const candidate = candidateOf(entry, file.sessionId, file.path);
        if (candidate === null) continue;
        const seen = best.get(candidate.key);
        if (seen === undefined || outranksInFile(candidate, seen)) best.set(candidate.key, candidate);
      }
      if (best.size === 0) return;
      putFile.run(file.id, file.path, file.project, file.device);
      const home: Home = { project: file.project, device: file.device };
      const device = rankedDevice(file.device);
      const changes = slotChanges();
      for (const keys of chunksOf([...best.keys()], KEYS_PER_QUERY)) {
        // What the book holds of these responses: this file's entry, and the one that counts.
        const array = keyArray(keys);
        const stored = new Map(
          (storedOf.all(file.id, array) as CandidateRow[]).map((row) => [row.key, candidateFromRow(row)]),
        );
        const counting = new Map((countingOf.all(array) as PlacedRow[]).map((row) => [row.key, storedFromRow(row)]));
        const writes: { candidate: Candidate; counted: boolean }[] = [];
        for (const key of keys) {
          const candidate = best.get(key) as Candidate;
          const before = stored.get(key);
          if (before !== undefined && !outranksInFile(candidate, before)) continue;
          const winner = counting.get(key);
          // This file's entry counts when none did, when the file's own counted (and this one beats it), or when it beats another file's.
          const counts =
            winner === undefined ||
            winner.fileId === file.id ||
            outranks({ candidate, path: file.path, device }, winner);
          if (counts && winner !== undefined) {
            changes.add(winner.candidate, winner.home, -1);
            if (winner.fileId !== file.id) setCounted.run(0, winner.fileId, BigInt(key));
          }
          if (counts) changes.add(candidate, home, 1);
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
  };
}
