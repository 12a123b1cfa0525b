/** The migrations of sync across machines (issue 35): listed after migrations.ts's own. */
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';

/**
 * Migration 31: usage_slots keyed by device too. SQLite cannot change a primary key, so the table
 * is rebuilt, only when it lacks `device` (a database set back to an older version, as tests do,
 * has it). Every file the book counted so far is this machine's (its slots go to '', totals kept)
 * unless the index already held another machine's: then which entry counts between devices was
 * decided by path, not as every machine decides it now (daemon/usage/rank.ts), and the book is
 * emptied for the follower to fold again from the index (entries of gone files are kept there).
 */
function addUsageDevice(db: Database.Database): void {
  const columns = db.pragma('table_info(usage_slots)') as { name: string }[];
  if (columns.some((column) => column.name === 'device')) return;
  db.exec("UPDATE usage_files SET device = coalesce((SELECT f.device FROM files f WHERE f.id = usage_files.id), '')");
  const synced = db.prepare("SELECT 1 FROM usage_files WHERE device != '' LIMIT 1").get() !== undefined;
  db.exec(`
    CREATE TABLE usage_slots_by_device (
      slot           INTEGER NOT NULL,
      project        TEXT NOT NULL,
      model          TEXT NOT NULL,
      device         TEXT NOT NULL DEFAULT '',
      responses      INTEGER NOT NULL,
      input          INTEGER NOT NULL,
      output         INTEGER NOT NULL,
      cache_creation INTEGER NOT NULL,
      cache_read     INTEGER NOT NULL,
      cache_5m       INTEGER NOT NULL,
      cache_1h       INTEGER NOT NULL,
      PRIMARY KEY (slot, project, model, device)
    ) STRICT, WITHOUT ROWID;
  `);
  if (synced) db.exec('DELETE FROM usage_candidates; DELETE FROM usage_files;');
  else
    db.exec(`
      INSERT INTO usage_slots_by_device
        SELECT slot, project, model, '', responses, input, output, cache_creation, cache_read, cache_5m, cache_1h FROM usage_slots;
    `);
  db.exec('DROP TABLE usage_slots; ALTER TABLE usage_slots_by_device RENAME TO usage_slots;');
}

export const SYNC_MIGRATIONS: readonly Migration[] = [
  {
    version: 30,
    name: "other machines' sessions, synced through a folder",
    // `files.device`: the device id of another machine whose transcript this is (decoded from its
    // synced archive; NULL: this machine's own). `session_aggregates.local`: the session has a file
    // of this machine's, so that a default listing stays this machine's. The sync_* tables: the
    // devices seen in the sync folder, how far each of their archive files has been decoded, what
    // this machine has mirrored of its own archive, and the sessions forgotten on any machine.
    sql: `
      CREATE TABLE IF NOT EXISTS sync_devices (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        version      TEXT NOT NULL,
        first_seen   INTEGER NOT NULL,
        last_seen    INTEGER NOT NULL,
        gone_at      INTEGER
      ) STRICT;
      CREATE TABLE IF NOT EXISTS sync_received (
        device        TEXT NOT NULL,
        rel           TEXT NOT NULL,
        archive_bytes INTEGER NOT NULL,
        source_bytes  INTEGER NOT NULL,
        head_len      INTEGER NOT NULL,
        head_hash     TEXT NOT NULL,
        seen_size     INTEGER NOT NULL,
        seen_mtime_ms INTEGER NOT NULL,
        problem       TEXT,
        PRIMARY KEY (device, rel)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS sync_published (
        rel           TEXT PRIMARY KEY,
        archive_bytes INTEGER NOT NULL,
        head_hash     TEXT NOT NULL,
        published_at  INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS sync_tombstones (
        session_hash       TEXT PRIMARY KEY,
        device             TEXT NOT NULL,
        at                 INTEGER NOT NULL,
        delete_transcripts INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
    addColumns: [
      { table: 'files', column: 'device', definition: 'TEXT' },
      { table: 'session_aggregates', column: 'local', definition: 'INTEGER NOT NULL DEFAULT 1' },
    ],
  },
  {
    version: 31,
    name: 'the usage book by device',
    // A response in files of two machines (a session copied or restored to another and resumed
    // there) counts once, and each machine's share is reported apart (daemon/usage/book.ts).
    // `usage_files.device` and `usage_slots.device` are the counted file's device: '' for this
    // machine's (a key column cannot be NULL), another machine's id for its transcripts.
    sql: '',
    addColumns: [{ table: 'usage_files', column: 'device', definition: "TEXT NOT NULL DEFAULT ''" }],
    apply: addUsageDevice,
  },
  {
    version: 32,
    name: 'memory files merged across machines',
    // Issue 35, memdir-sync.ts: each memory this machine holds (project, scope, name) with the etag
    // it last saw or merged (NULL: deleted here, a tombstone), the etag that version was made from,
    // its version vector (JSON: device id → that device's counter) and this machine's counter when
    // the row changed; the counters (this machine's own, and the highest manifest counter read from
    // each other machine, so that a rolled-back copy is never taken for news); and the conflicts:
    // a memory changed on two machines from one version, both kept, until one is chosen.
    sql: `
      CREATE TABLE IF NOT EXISTS memdir_sync_memories (
        project    TEXT NOT NULL,
        scope      TEXT NOT NULL,
        name       TEXT NOT NULL,
        etag       TEXT,
        base       TEXT,
        version    TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        changed_at INTEGER NOT NULL,
        PRIMARY KEY (project, scope, name)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS memdir_sync_counters (
        device  TEXT PRIMARY KEY,
        counter INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS memdir_sync_conflicts (
        id            INTEGER PRIMARY KEY,
        project       TEXT NOT NULL,
        scope         TEXT NOT NULL,
        name          TEXT NOT NULL,
        device        TEXT NOT NULL,
        local_etag    TEXT,
        their_etag    TEXT,
        their_version TEXT NOT NULL,
        their_base    TEXT,
        kept          TEXT,
        found_at      INTEGER NOT NULL,
        resolved_at   INTEGER,
        resolution    TEXT
      ) STRICT;
      CREATE UNIQUE INDEX IF NOT EXISTS memdir_sync_conflicts_open
        ON memdir_sync_conflicts (project, scope, name, device) WHERE resolved_at IS NULL;
    `,
  },
];
