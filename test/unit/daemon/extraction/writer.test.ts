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
    const hashes = [sha256Of(MEMD_TEXT)];
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT + 60_000 }, hashes, AT)).toBe(false);
    expect(writtenByOther({ text: CLAUDE_TEXT, mtimeMs: AT - 60_000 }, hashes, AT)).toBe(true);
  });

  it("takes a file memd never extracted as not memd's", () => {
    expect(writtenByOther({ text: CLAUDE_TEXT, mtimeMs: AT }, [], null)).toBe(true);
  });

  it('without a hash (written before migration 24) goes by the time of the last extraction', () => {
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT - 10 }, [], AT)).toBe(false);
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT + LEGACY_MTIME_SLACK_MS }, [], AT)).toBe(false);
    expect(writtenByOther({ text: CLAUDE_TEXT, mtimeMs: AT + LEGACY_MTIME_SLACK_MS + 1 }, [], AT)).toBe(true);
  });
});

describe('the writer book (migration 24)', () => {
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

  it("records memd's hash before each write, keeping the one before, and Claude Code's hand over them", () => {
    const book = createWriterBook(store.db);
    expect(book.writerOf('s1')).toBeNull();
    expect(book.memdHashes('s1')).toEqual([]);
    book.writingByMemd('s1', MEMD_TEXT);
    expect(book.writerOf('s1')).toBe('memd');
    expect(book.memdHashes('s1')).toEqual([sha256Of(MEMD_TEXT)]);
    // A daemon killed between this record and the write leaves the old file: still memd's.
    book.writingByMemd('s1', `${MEMD_TEXT}more\n`);
    expect(writtenByOther({ text: MEMD_TEXT, mtimeMs: AT }, book.memdHashes('s1'), AT)).toBe(false);
    expect(writtenByOther({ text: `${MEMD_TEXT}more\n`, mtimeMs: AT }, book.memdHashes('s1'), AT)).toBe(false);
    book.foundOthers('s1');
    expect(book.writerOf('s1')).toBe('claude-code');
    expect(book.memdHashes('s1')).toHaveLength(2);
    expect(book.writerOf('s2')).toBeNull();
  });
});
