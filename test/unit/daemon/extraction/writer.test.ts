/** Whose summary.md a session's memory is: memd's (its recorded hash) or Claude Code's own (issue 31). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWriterBook,
  LEGACY_MTIME_SLACK_MS,
  sha256Of,
  writtenByOther,
} from '../../../../daemon/extraction/writer.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

const MEMD_TEXT = '# Session Title\n_A short title_\n\nmemd wrote this\n';
const CLAUDE_TEXT = '# Session Title\n_A short title_\n\nClaude Code wrote this\n';
const AT = Date.parse('2026-12-05T12:00:00.000Z');

describe('writtenByOther', () => {
  it('is false for the text whose hash memd recorded, true for any other text', () => {
    const hash = sha256Of(MEMD_TEXT);
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT + 60_000 }, hash, AT)).toBe(false);
    expect(writtenByOther({ text: CLAUDE_TEXT, mtimeMs: AT - 60_000 }, hash, AT)).toBe(true);
  });

  it("takes a file memd never extracted as not memd's", () => {
    expect(writtenByOther({ text: CLAUDE_TEXT, mtimeMs: AT }, null, null)).toBe(true);
  });

  it('without a hash (written before migration 23) goes by the time of the last extraction', () => {
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT - 10 }, null, AT)).toBe(false);
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT + LEGACY_MTIME_SLACK_MS }, null, AT)).toBe(false);
    expect(writtenByOther({ text: CLAUDE_TEXT, mtimeMs: AT + LEGACY_MTIME_SLACK_MS + 1 }, null, AT)).toBe(true);
  });
});

describe('the writer book (migration 23)', () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memd-writer-'));
    store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("records memd's hash, then Claude Code's hand over it, keeping memd's last hash", () => {
    const book = createWriterBook(store.db);
    expect(book.writerOf('s1')).toBeNull();
    expect(book.memdHash('s1')).toBeNull();
    book.wroteByMemd('s1', MEMD_TEXT);
    expect(book.writerOf('s1')).toBe('memd');
    expect(book.memdHash('s1')).toBe(sha256Of(MEMD_TEXT));
    book.foundOthers('s1');
    expect(book.writerOf('s1')).toBe('claude-code');
    expect(book.memdHash('s1')).toBe(sha256Of(MEMD_TEXT));
    expect(book.writerOf('s2')).toBeNull();
  });
});
