import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../daemon/store/db.js';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

/** The last schema whose search index was built from texts redacted by the older, narrower rules. */
const BEFORE_WIDER_REDACTION = 15;

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-redaction-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a search index built under the older redaction rules (issue 27)', () => {
  it('is emptied and every file is read again, so that a secret the old rules let through cannot be found', () => {
    const path = join(dir, 'memd.sqlite');
    const old = new Database(path);
    for (const migration of MIGRATIONS.filter((candidate) => candidate.version <= BEFORE_WIDER_REDACTION))
      old.exec(migration.sql);
    old.pragma(`user_version = ${BEFORE_WIDER_REDACTION}`);
    old
      .prepare(
        `INSERT INTO files (id, path, project, session_id, agent_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen, search_offset)
         VALUES (1, '/p/s.jsonl', '-p', 's', NULL, 0, '1', '2', 100, 10, 'h', 100, 100, 1, 0, 1, 0, 0, 0, 100)`,
      )
      .run();
    // What the older rules indexed of `PGPASSWORD=pgHunter2pass psql`: all of it.
    old.prepare('INSERT INTO search_fts (rowid, text) VALUES (?, ?)').run(1, 'PGPASSWORD=pgHunter2pass psql');
    old.close();

    const store = openStore(path, fakeLogger(), () => new Date());
    try {
      expect(
        store.db.prepare("SELECT count(*) FROM search_fts WHERE search_fts MATCH 'pgHunter2pass'").pluck().get(),
      ).toBe(0);
      expect(store.db.prepare('SELECT search_offset FROM files WHERE id = 1').pluck().get()).toBe(0);
    } finally {
      store.close();
    }
  });
});
