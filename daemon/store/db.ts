/**
 * The state store: SQLite in WAL mode. At open it checks integrity; a corrupt (or newer-schema)
 * database is moved aside as `memd.sqlite.corrupt-<time>` and rebuilt from nothing, because all
 * of its content is derivable from the transcripts. While memd runs, `daemon/store/health.ts`
 * watches the file and swaps the connection (`reopenable.ts`) when it is deleted or broken.
 */

import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { DatabaseStatus } from '../../shared/protocol/daemon.js';
import type { Logger } from '../log/logger.js';
import type { Migration } from './migration.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { createReopenableDb, type ReopenableDb } from './reopenable.js';

/** Readers and the writer share the file; wait this long for a lock instead of failing at once. */
const BUSY_TIMEOUT_MS = 5_000;
const SIDE_FILES = ['-wal', '-shm'] as const;
/**
 * Written after a clean close: the file's identity then. A start that finds the file unchanged
 * since (and no WAL) skips quick_check, which reads the whole file (~0.7 s at 200 MB); after a
 * crash, or when anything touched the file, the check runs as before.
 */
const CLEAN_SUFFIX = '-clean';

export interface Store {
  /** The handle every domain keeps: it follows the connection across a reopen. */
  readonly db: Database.Database;
  readonly status: DatabaseStatus;
  readonly path: string;
  readonly connection: ReopenableDb;
  /** Set by the health check: called (after the throwing call) when SQLite says the file is broken. */
  onBrokenFile: (error: unknown) => void;
  close(): void;
}

class CorruptDatabaseError extends Error {
  override name = 'CorruptDatabaseError';
}

function configure(db: Database.Database): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') throw new CorruptDatabaseError(`journal_mode is ${String(mode)}, not wal`);
  db.pragma('synchronous = NORMAL');
  // Deleted rows and freed pages are zeroed, not left in the file: archive.forget must leave none
  // of a session's text behind, and a page freed long before (a search index merge) would hold it.
  db.pragma('secure_delete = ON');
  db.pragma('foreign_keys = ON');
}

/**
 * quick_check finds corrupt pages and records in time linear in the file, without the index
 * cross-checks that make integrity_check too slow for a start-up that clients wait on (the full
 * check is `memd --check-db`, which `memctl doctor` runs).
 */
function checkIntegrity(db: Database.Database): void {
  const rows = db.pragma('quick_check') as { quick_check: string }[];
  const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
  if (problems.length > 0) throw new CorruptDatabaseError(`quick_check: ${problems.slice(0, 3).join('; ')}`);
}

/** Device, inode, size and mtime: what any write, replacement or copy over the file changes. */
function identityOf(path: string): string | null {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats === undefined ? null : `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
}

/** Whether the file is as the last clean close left it; the mark is used up either way (this run may not end cleanly). */
function closedCleanly(path: string): boolean {
  const mark = path + CLEAN_SUFFIX;
  let recorded: string;
  try {
    recorded = readFileSync(mark, 'utf8');
    rmSync(mark);
  } catch {
    return false;
  }
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
  return (wal === undefined || wal.size === 0) && recorded === identityOf(path);
}

/** After the last connection closed (SQLite checkpointed and removed the WAL); best effort. */
function markClean(path: string): void {
  const identity = identityOf(path);
  if (identity === null || existsSync(`${path}-wal`)) return;
  try {
    // 'wx': never through a symlink or over a file someone put there.
    writeFileSync(path + CLEAN_SUFFIX, identity, { flag: 'wx', mode: 0o600 });
  } catch {
    // The next start checks the file: slower, never wrong.
  }
}

/** One migration's changes and its version, in the caller's transaction. */
export function applyMigration(db: Database.Database, migration: Migration): void {
  db.exec(migration.sql);
  for (const { table, column, definition } of migration.addColumns ?? []) {
    const columns = db.pragma(`table_info(${table})`) as { name: string }[];
    if (!columns.some((known) => known.name === column))
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
  migration.apply?.(db);
  db.pragma(`user_version = ${migration.version}`);
}

function migrate(db: Database.Database, log: Logger): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new CorruptDatabaseError(`schema version ${current} is newer than this memd's ${SCHEMA_VERSION}`);
  }
  const pending = MIGRATIONS.filter((migration) => migration.version > current);
  if (pending.length === 0) return;
  const started = Date.now();
  for (const migration of pending) {
    db.transaction(() => applyMigration(db, migration))();
    log.debug('database migration applied', { version: migration.version, name: migration.name });
  }
  // One line for the whole run: a new database takes every migration, and a line each drowned the start.
  const plural = pending.length === 1 ? 'migration' : 'migrations';
  log.info(`database migrated from ${current} to ${SCHEMA_VERSION} (${pending.length} ${plural})`, {
    from: current,
    to: SCHEMA_VERSION,
    migrations: pending.length,
    ms: Date.now() - started,
  });
}

export function openChecked(path: string, log: Logger): Database.Database {
  const clean = closedCleanly(path);
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Checked before anything writes to it, so that a corrupt file is moved aside as it was found.
    if (clean) log.info('database closed cleanly and unchanged since; quick_check skipped', { path });
    else checkIntegrity(db);
    configure(db);
    migrate(db, log);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function isCorruption(error: unknown): boolean {
  if (error instanceof CorruptDatabaseError) return true;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT_VTAB';
}

export function moveAside(path: string, at: Date): string {
  const movedTo = `${path}.corrupt-${at.toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, movedTo);
  for (const suffix of SIDE_FILES) {
    if (existsSync(path + suffix)) renameSync(path + suffix, movedTo + suffix);
  }
  return movedTo;
}

export function openStore(path: string, log: Logger, clock: () => Date = () => new Date()): Store {
  let recoveredFrom: DatabaseStatus['recoveredFrom'] = null;
  let db: Database.Database;
  try {
    db = openChecked(path, log);
  } catch (error) {
    if (!isCorruption(error)) throw error;
    const at = clock();
    const movedTo = moveAside(path, at);
    const reason = (error as Error).message;
    log.warn('database was corrupt; moved aside and rebuilt', { movedTo, reason });
    recoveredFrom = { movedTo, reason, at: at.toISOString() };
    db = openChecked(path, log);
  }
  const status: DatabaseStatus = { schemaVersion: SCHEMA_VERSION, recoveredFrom, whileRunning: null };
  const connection = createReopenableDb(db, (error) => store.onBrokenFile(error));
  const store: Store = {
    db: connection.db,
    status,
    path,
    connection,
    onBrokenFile: () => undefined,
    close() {
      const current = connection.current();
      if (!current.open) return;
      current.close();
      markClean(path);
    },
  };
  return store;
}
