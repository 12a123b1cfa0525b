/**
 * What memdir sync keeps in SQLite (migration 32): a row per memory this machine holds or held
 * (its etag, base and version), the counters (this machine's, and the highest manifest counter
 * read from each other machine), and the conflicts. Synchronous statements only; the callers keep
 * the rows of memories in memory as well, since every scan compares against all of them.
 */
import type Database from 'better-sqlite3';
import type { MemoryScope } from '../../shared/protocol/memdir.js';
import { EMPTY_VERSION, parseVersion, type Version, versionText } from './memdir-version.js';

export interface MemoryRecord {
  project: string;
  scope: MemoryScope;
  name: string;
  /** This machine's version; null: deleted here (a tombstone, published so that others delete it too). */
  etag: string | null;
  base: string | null;
  version: Version;
  /** This machine's counter when the row last changed. */
  seq: number;
  /** This machine's clock (ms) then: only for how long a tombstone is kept. */
  changedAt: number;
}

export interface ConflictRow {
  id: number;
  project: string;
  scope: MemoryScope;
  name: string;
  device: string;
  localEtag: string | null;
  theirEtag: string | null;
  theirVersion: Version;
  theirBase: string | null;
  kept: string | null;
  foundAt: number;
}

export type NewConflict = Omit<ConflictRow, 'id'>;
export type Resolution = 'local' | 'theirs' | 'merged';

interface RecordRow {
  project: string;
  scope: string;
  name: string;
  etag: string | null;
  base: string | null;
  version: string;
  seq: number;
  changed_at: number;
}

interface ConflictDbRow {
  id: number;
  project: string;
  scope: string;
  name: string;
  device: string;
  local_etag: string | null;
  their_etag: string | null;
  their_version: string;
  their_base: string | null;
  kept: string | null;
  found_at: number;
}

const scopeOf = (text: string): MemoryScope => (text === 'team' ? 'team' : 'private');

/** A version as stored; a row memd did not write reads as no version (every remote one then descends from it). */
function storedVersion(text: string): Version {
  try {
    return parseVersion(JSON.parse(text)) ?? EMPTY_VERSION;
  } catch {
    return EMPTY_VERSION;
  }
}

function conflictOf(row: ConflictDbRow): ConflictRow {
  return {
    id: row.id,
    project: row.project,
    scope: scopeOf(row.scope),
    name: row.name,
    device: row.device,
    localEtag: row.local_etag,
    theirEtag: row.their_etag,
    theirVersion: storedVersion(row.their_version),
    theirBase: row.their_base,
    kept: row.kept,
    foundAt: row.found_at,
  };
}

export interface MemdirBook {
  records(): MemoryRecord[];
  put(record: MemoryRecord): void;
  remove(record: Pick<MemoryRecord, 'project' | 'scope' | 'name'>): void;
  /** A device's counter: this machine's own, or the highest manifest counter read from another. */
  counter(device: string): number | null;
  setCounter(device: string, counter: number): void;
  openConflicts(filter?: { project?: string; scope?: MemoryScope; name?: string }): ConflictRow[];
  /**
   * Records a conflict, or replaces the open one of the same memory and device (their version moved
   * on); the version the replaced row kept, when no row names it any more (theirs superseded it).
   */
  upsertConflict(conflict: NewConflict): string | null;
  resolveConflict(id: number, resolution: Resolution, at: number): void;
  /** Resolved conflicts older than `before`, removed; the kept files no row names any more. */
  pruneResolved(before: number): string[];
  /** Another machine's name, as the sync service recorded it (migration 30), or null. */
  deviceName(device: string): string | null;
}

export function createMemdirBook(db: Database.Database): MemdirBook {
  const selectRecords = db.prepare<[], RecordRow>('SELECT * FROM memdir_sync_memories');
  const upsertRecord = db.prepare(
    `INSERT INTO memdir_sync_memories (project, scope, name, etag, base, version, seq, changed_at)
     VALUES (@project, @scope, @name, @etag, @base, @version, @seq, @changedAt)
     ON CONFLICT (project, scope, name) DO UPDATE SET etag = excluded.etag, base = excluded.base,
       version = excluded.version, seq = excluded.seq, changed_at = excluded.changed_at`,
  );
  const deleteRecord = db.prepare('DELETE FROM memdir_sync_memories WHERE project = ? AND scope = ? AND name = ?');
  const selectCounter = db
    .prepare<[string], number>('SELECT counter FROM memdir_sync_counters WHERE device = ?')
    .pluck();
  const upsertCounter = db.prepare(
    'INSERT INTO memdir_sync_counters (device, counter) VALUES (?, ?) ON CONFLICT (device) DO UPDATE SET counter = excluded.counter',
  );
  const selectOpen = db.prepare<[], ConflictDbRow>(
    'SELECT * FROM memdir_sync_conflicts WHERE resolved_at IS NULL ORDER BY found_at, id',
  );
  // Through the open conflicts' index: asked for every memory a manifest lists.
  const selectOpenOf = db.prepare<[string, string, string], ConflictDbRow>(
    `SELECT * FROM memdir_sync_conflicts WHERE project = ? AND scope = ? AND name = ? AND resolved_at IS NULL
     ORDER BY found_at, id`,
  );
  const closeOpen = db.prepare(
    'UPDATE memdir_sync_conflicts SET resolved_at = ?, resolution = ? WHERE id = ? AND resolved_at IS NULL',
  );
  const deleteOpen = db.prepare(
    'DELETE FROM memdir_sync_conflicts WHERE project = ? AND scope = ? AND name = ? AND device = ? AND resolved_at IS NULL',
  );
  const insertConflict = db.prepare(
    `INSERT INTO memdir_sync_conflicts (project, scope, name, device, local_etag, their_etag, their_version, their_base, kept, found_at)
     VALUES (@project, @scope, @name, @device, @localEtag, @theirEtag, @theirVersion, @theirBase, @kept, @foundAt)`,
  );
  const selectOldResolved = db.prepare<[number], { id: number; kept: string | null }>(
    'SELECT id, kept FROM memdir_sync_conflicts WHERE resolved_at IS NOT NULL AND resolved_at < ?',
  );
  const deleteConflict = db.prepare('DELETE FROM memdir_sync_conflicts WHERE id = ?');
  const keptStillNamed = db
    .prepare<[string], number>('SELECT count(*) FROM memdir_sync_conflicts WHERE kept = ?')
    .pluck();
  const selectDeviceName = db.prepare<[string], string>('SELECT name FROM sync_devices WHERE id = ?').pluck();

  const selectOpenKept = db
    .prepare<[string, string, string, string], string | null>(
      `SELECT kept FROM memdir_sync_conflicts WHERE project = ? AND scope = ? AND name = ? AND device = ?
     AND resolved_at IS NULL`,
    )
    .pluck();
  const upsert = db.transaction((conflict: NewConflict): string | null => {
    const key = [conflict.project, conflict.scope, conflict.name, conflict.device] as const;
    const replaced = selectOpenKept.get(...key) ?? null;
    deleteOpen.run(...key);
    insertConflict.run({ ...conflict, theirVersion: versionText(conflict.theirVersion) });
    return replaced !== null && keptStillNamed.get(replaced) === 0 ? replaced : null;
  });
  const prune = db.transaction((before: number): string[] => {
    const rows = selectOldResolved.all(before);
    for (const row of rows) deleteConflict.run(row.id);
    const kept = new Set(rows.map((row) => row.kept).filter((path): path is string => path !== null));
    return [...kept].filter((path) => keptStillNamed.get(path) === 0);
  });

  return {
    records: () =>
      selectRecords.all().map((row) => ({
        project: row.project,
        scope: scopeOf(row.scope),
        name: row.name,
        etag: row.etag,
        base: row.base,
        version: storedVersion(row.version),
        seq: row.seq,
        changedAt: row.changed_at,
      })),
    put(record) {
      upsertRecord.run({ ...record, version: versionText(record.version) });
    },
    remove(record) {
      deleteRecord.run(record.project, record.scope, record.name);
    },
    counter: (device) => selectCounter.get(device) ?? null,
    setCounter(device, counter) {
      upsertCounter.run(device, counter);
    },
    openConflicts(filter = {}) {
      const { project, scope, name } = filter;
      if (project !== undefined && scope !== undefined && name !== undefined)
        return selectOpenOf.all(project, scope, name).map(conflictOf);
      return selectOpen
        .all()
        .map(conflictOf)
        .filter(
          (row) =>
            (filter.project === undefined || row.project === filter.project) &&
            (filter.scope === undefined || row.scope === filter.scope) &&
            (filter.name === undefined || row.name === filter.name),
        );
    },
    upsertConflict: (conflict) => upsert(conflict),
    resolveConflict(id, resolution, at) {
      closeOpen.run(at, resolution, id);
    },
    pruneResolved: (before) => prune(before),
    deviceName: (device) => selectDeviceName.get(device) ?? null,
  };
}
