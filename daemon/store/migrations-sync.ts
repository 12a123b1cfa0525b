/** The migrations of sync across machines (issue 35): listed after migrations.ts's own. */
import type { Migration } from './migration.js';

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
        published_at  INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS sync_tombstones (
        session_id         TEXT PRIMARY KEY,
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
