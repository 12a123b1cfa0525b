/**
 * The usage book (migration 14): every file's best entry of each response (`usage_candidates`),
 * the one entry that counts for each response across files (`usage_winners`, rank.ts decides),
 * and the counted usage summed by quarter hour, project and model (`usage_slots`), which is all a
 * report reads: a month of a heavy user's history is a few thousand rows, read in milliseconds.
 * Folding is idempotent and order-free, so ingest's commits, a rebuild and the background build
 * of an older database (builder.ts) may fold the same entries in any order. Callers run every
 * method inside their transaction.
 */
import type Database from 'better-sqlite3';
import type { Usage } from '../../shared/transcript/types.js';
import { type Candidate, candidateOf, outranks, outranksInFile, type Placed, type ResponseEntry } from './rank.js';

/** Keys per lookup (a JSON array bound once): one statement for many responses. */
const KEYS_PER_QUERY = 500;
const CANDIDATE_COLUMNS = 12;
/** Rows per multi-row INSERT: a statement step per row costs more than binding one (see entry-row.ts). */
const CANDIDATE_BATCH = 32;
/** Unbounded window ends, as bound parameters. */
const FIRST_SLOT = Number.MIN_SAFE_INTEGER;
const LAST_SLOT = Number.MAX_SAFE_INTEGER;

export interface BookFile {
  id: number;
  path: string;
  project: string;
  sessionId: string;
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
}

const usageOf = (row: CandidateRow): Usage => ({
  input: row.input,
  output: row.output,
  cacheCreation: row.cache_creation,
  cacheRead: row.cache_read,
  cache5m: row.cache_5m,
  cache1h: row.cache_1h,
});

const candidateFromRow = (row: CandidateRow): Candidate => ({ key: row.key, offset: row.offset, slot: row.slot, sidechain: row.sidechain === 1, model: row.model, usage: usageOf(row) });

const placedFromRow = (row: PlacedRow): Placed & { fileId: number; project: string } => ({ candidate: candidateFromRow(row), path: row.path, fileId: row.file_id, project: row.project });

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
        row = { slot: candidate.slot, project, model: candidate.model, responses: 0, input: 0, output: 0, cache_creation: 0, cache_read: 0, cache_5m: 0, cache_1h: 0 };
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
  const putFile = db.prepare('INSERT INTO usage_files (id, path, project) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET path = excluded.path, project = excluded.project');
  const fileRow = db.prepare('SELECT project FROM usage_files WHERE id = ?').pluck();
  const dropFileRow = db.prepare('DELETE FROM usage_files WHERE id = ?');
  const orphans = db.prepare('SELECT u.id FROM usage_files u LEFT JOIN files f ON f.id = u.id WHERE f.id IS NULL OR f.path != u.path').pluck();
  const candidateColumns = 'CAST(c.key AS TEXT) AS key, c.file_id, c.offset, c.slot, c.sidechain, c.model, c.input, c.output, c.cache_creation, c.cache_read, c.cache_5m, c.cache_1h';
  const storedOf = db.prepare(`SELECT ${candidateColumns} FROM usage_candidates c WHERE c.file_id = ? AND c.key IN (SELECT value FROM json_each(?))`);
  const winnersOf = db.prepare(`
    SELECT ${candidateColumns}, f.path, f.project FROM usage_winners w
    JOIN usage_candidates c ON c.key = w.key AND c.file_id = w.file_id JOIN usage_files f ON f.id = w.file_id
    WHERE w.key IN (SELECT value FROM json_each(?))`);
  const candidatesOf = db.prepare(`
    SELECT ${candidateColumns}, f.path, f.project FROM usage_candidates c JOIN usage_files f ON f.id = c.file_id
    WHERE c.key IN (SELECT value FROM json_each(?))`);
  const winsOf = db.prepare(`SELECT ${candidateColumns} FROM usage_candidates c JOIN usage_winners w ON w.key = c.key AND w.file_id = c.file_id WHERE c.file_id = ?`);
  const dropCandidates = db.prepare('DELETE FROM usage_candidates WHERE file_id = ?');
  const putCandidate = db.prepare('INSERT OR REPLACE INTO usage_candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const putCandidates = db.prepare(`INSERT OR REPLACE INTO usage_candidates VALUES ${Array.from({ length: CANDIDATE_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
  const putWinner = db.prepare('INSERT OR REPLACE INTO usage_winners (key, file_id) VALUES (?, ?)');
  const dropWinner = db.prepare('DELETE FROM usage_winners WHERE key = ?');
  const addSlot = db.prepare(`
    INSERT INTO usage_slots (slot, project, model, responses, input, output, cache_creation, cache_read, cache_5m, cache_1h)
    VALUES (@slot, @project, @model, @responses, @input, @output, @cache_creation, @cache_read, @cache_5m, @cache_1h)
    ON CONFLICT (slot, project, model) DO UPDATE SET responses = responses + excluded.responses, input = input + excluded.input,
      output = output + excluded.output, cache_creation = cache_creation + excluded.cache_creation, cache_read = cache_read + excluded.cache_read,
      cache_5m = cache_5m + excluded.cache_5m, cache_1h = cache_1h + excluded.cache_1h`);
  const dropEmptySlot = db.prepare('DELETE FROM usage_slots WHERE slot = @slot AND project = @project AND model = @model AND responses <= 0');
  const slotsIn = db.prepare('SELECT * FROM usage_slots WHERE slot >= ? AND slot < ? ORDER BY slot');
  const slotsOfProject = db.prepare('SELECT * FROM usage_slots WHERE slot >= ? AND slot < ? AND project = ? ORDER BY slot');

  const writeCandidates = (fileId: number, candidates: readonly Candidate[]) => {
    const params: (string | number | bigint)[] = [];
    const flush = (statement: Database.Statement) => {
      statement.run(params);
      params.length = 0;
    };
    for (const { key, offset, slot, sidechain, model, usage } of candidates) {
      params.push(BigInt(key), fileId, offset, slot, sidechain ? 1 : 0, model, usage.input, usage.output, usage.cacheCreation, usage.cacheRead, usage.cache5m, usage.cache1h);
      if (params.length === CANDIDATE_BATCH * CANDIDATE_COLUMNS) flush(putCandidates);
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
    const wins = (winsOf.all(fileId) as CandidateRow[]).map(candidateFromRow);
    dropCandidates.run(fileId);
    dropFileRow.run(fileId);
    const changes = slotChanges();
    for (const chunk of chunksOf(wins, KEYS_PER_QUERY)) {
      // The next best entry of each response this file counted, in the files that remain.
      const next = new Map<string, Placed & { fileId: number; project: string }>();
      for (const row of candidatesOf.all(keyArray(chunk.map((win) => win.key))) as PlacedRow[]) {
        const placed = placedFromRow(row);
        const best = next.get(row.key);
        if (best === undefined || outranks(placed, best)) next.set(row.key, placed);
      }
      for (const win of chunk) {
        changes.add(win, project, -1);
        const heir = next.get(win.key);
        if (heir === undefined) dropWinner.run(BigInt(win.key));
        else {
          putWinner.run(BigInt(win.key), heir.fileId);
          changes.add(heir.candidate, heir.project, 1);
        }
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
        const stored = new Map((storedOf.all(file.id, keyArray(keys)) as CandidateRow[]).map((row) => [row.key, candidateFromRow(row)]));
        const changed = keys
          .map((key) => best.get(key) as Candidate)
          .filter((candidate) => {
            const before = stored.get(candidate.key);
            return before === undefined || outranksInFile(candidate, before);
          });
        if (changed.length === 0) continue;
        // Read before the candidates are written: a winner from this file is replaced by them.
        const winners = new Map((winnersOf.all(keyArray(changed.map((candidate) => candidate.key))) as PlacedRow[]).map((row) => [row.key, placedFromRow(row)]));
        writeCandidates(file.id, changed);
        for (const candidate of changed) {
          const winner = winners.get(candidate.key);
          if (winner !== undefined && winner.fileId !== file.id && !outranks({ candidate, path: file.path }, winner)) continue;
          // This file's entry counts now: new, better than the file's own that counted, or better than another file's.
          if (winner?.fileId !== file.id) putWinner.run(BigInt(candidate.key), file.id);
          if (winner !== undefined) changes.add(winner.candidate, winner.project, -1);
          changes.add(candidate, file.project, 1);
        }
      }
      writeSlots(changes);
    },
    dropFile,
    dropOrphans() {
      const gone = orphans.all() as number[];
      for (const fileId of gone) dropFile(fileId);
      return gone.length;
    },
    slots(fromSlot, toSlot, project) {
      const range = [fromSlot ?? FIRST_SLOT, toSlot ?? LAST_SLOT];
      return (project === null ? slotsIn.all(...range) : slotsOfProject.all(...range, project)) as SlotRow[];
    },
  };
}
