import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createInjectedBook } from '../../../../daemon/recall/injected.js';
import { openStore } from '../../../../daemon/store/db.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { memoryInjectedBook } from '../../../helpers/recall-book.js';

const DAY_MS = 86_400_000;

describe('the recall book (issue 33)', () => {
  it('remembers what a session was given across a daemon restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memd-book-'));
    try {
      const first = openStore(join(dir, 'memd.sqlite'), fakeLogger());
      createInjectedBook(first.db).add('s1', ['a:1', 'b:2']);
      first.db.close();
      const again = openStore(join(dir, 'memd.sqlite'), fakeLogger());
      const book = createInjectedBook(again.db);
      expect([book.has('s1', 'a:1'), book.has('s1', 'b:2'), book.has('s2', 'a:1')]).toEqual([true, true, false]);
      again.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps a session's newest 512 passages, and forgets sessions given nothing for 30 days", () => {
    let now = Date.parse('2026-11-01T00:00:00Z');
    const { book, db } = memoryInjectedBook(() => now);
    for (let n = 0; n < 520; n++) {
      now += 1_000;
      book.add('long', [`p:${n}`]);
    }
    expect(book.has('long', 'p:7')).toBe(false);
    expect(book.has('long', 'p:8')).toBe(true);
    expect(db.prepare("SELECT count(*) FROM recall_injected WHERE session_id = 'long'").pluck().get()).toBe(512);
    now += 31 * DAY_MS;
    book.add('new', ['q:1']);
    expect(book.has('long', 'p:519')).toBe(false);
    expect(book.has('new', 'q:1')).toBe(true);
  });
});
