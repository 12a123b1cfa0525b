import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../daemon/store/db.js';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

/** The last schema whose search index held prompts to 8,000 characters and no written files or thinking. */
const BEFORE_WIDER_TEXTS = 20;

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-search-texts-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a search index built before prompts were indexed whole and writes and thinking at all (issue 28)', () => {
  it('is emptied and every file is read again, so that existing sessions get the new texts', () => {
    const path = join(dir, 'memd.sqlite');
    const old = new Database(path);
    for (const migration of MIGRATIONS.filter((candidate) => candidate.version <= BEFORE_WIDER_TEXTS))
      old.exec(migration.sql);
    old.pragma(`user_version = ${BEFORE_WIDER_TEXTS}`);
    old
      .prepare(
        `INSERT INTO files (id, path, project, session_id, agent_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen, search_offset)
         VALUES (1, '/p/s.jsonl', '-p', 's', NULL, 0, '1', '2', 100, 10, 'h', 100, 100, 1, 0, 1, 0, 0, 0, 100)`,
      )
      .run();
    old.prepare('INSERT INTO search_fts (rowid, text) VALUES (?, ?)').run(8, 'the head of a long prompt');
    old.close();

    const store = openStore(path, fakeLogger(), () => new Date());
    try {
      expect(store.db.prepare("SELECT count(*) FROM search_fts WHERE search_fts MATCH 'prompt'").pluck().get()).toBe(0);
      expect(store.db.prepare('SELECT search_offset FROM files WHERE id = 1').pluck().get()).toBe(0);
    } finally {
      store.close();
    }
  });
});
