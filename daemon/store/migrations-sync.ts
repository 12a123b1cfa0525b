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
        head_hash     TEXT NOT NULL,
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
];
