/**
 * The file calls before a session's last compaction (issue 32, F: transcripts/earlier.ts): read
 * back with bounded memory (only the file calls' lines, cut to their paths and commands, and
 * Write's result; a successful result is never read), nothing read without a compaction, the
 * active conversation's entries (a preserved segment) left to it, in slices that stop on abort.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { earlierEntries, loadEarlierCalls, readEarlierCalls } from '../../../../daemon/transcripts/earlier.js';
import { callFiles } from '../../../../daemon/transcripts/facts.js';
import { type IngestedSession, ingestFixture } from '../../../helpers/compact.js';
import { BIG_READ_CHARS, HIDDEN_CWD, ingestHiddenFiles } from '../../../helpers/compacted-session.js';
import { cartSession, ingestShape } from '../../../helpers/memory-shapes.js';

let dir: string;
let session: IngestedSession | null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-earlier-'));
  session = null;
});
afterEach(() => {
  session?.close();
  rmSync(dir, { recursive: true, force: true });
});

const files = (calls: ReturnType<typeof loadEarlierCalls>) =>
  calls.flatMap((call) => callFiles(call).map((file) => `${file.action} ${file.path}`));

describe('earlier calls', () => {
  it('are the file calls before the boundary, with their results, cut to their paths and commands', async () => {
    session = await ingestHiddenFiles(dir);
    const { file, entries, active } = session.conversation();
    const calls = loadEarlierCalls(file.path, entries, active);
    expect(calls.map((call) => call.name)).toEqual(['Read', 'Edit', 'Write', 'Bash', 'Edit']);
    expect(files(calls)).toEqual([
      `read ${HIDDEN_CWD}/data/fixtures.json`,
      `edited ${HIDDEN_CWD}/store/cache.py`,
      `written ${HIDDEN_CWD}/tests/test_cache.py`,
      `edited ${HIDDEN_CWD}/config.ini`,
    ]);
    // The failed Edit is known failed from the index; Write's result was read for its kind.
    expect(calls[4]?.result?.failed).toBe(true);
    expect(calls[2]?.result?.meta).toEqual({ type: 'create' });
    // Only what names files is kept of an input: no edit's text, no file's content.
    expect(calls.map((call) => Object.keys(call.input))).toEqual([
      ['file_path'],
      ['file_path'],
      ['file_path'],
      ['command'],
      ['file_path'],
    ]);
  });

  it('never read a successful result back: the big Read result may be anything', async () => {
    session = await ingestHiddenFiles(dir);
    const { file, entries, active } = session.conversation();
    const big = entries.find((entry) => entry.length > BIG_READ_CHARS);
    if (big === undefined) throw new Error('no big result');
    const chosen = earlierEntries(entries, active);
    expect(chosen.find((item) => item.entry === big)?.read).toBe(false);
    // The same length of garbage at its place: reading it would fail with InvalidTranscript.
    const bytes = readFileSync(file.path);
    bytes.fill(0x20, big.offset, big.offset + big.length - 1);
    writeFileSync(file.path, bytes);
    expect(files(loadEarlierCalls(file.path, entries, active))).toContain(`edited ${HIDDEN_CWD}/store/cache.py`);
  });

  it('are none without a compaction, and nothing is read', async () => {
    session = await ingestShape(dir, cartSession());
    const { file, entries, active } = session.conversation();
    expect(active.boundary).toBeNull();
    expect(earlierEntries(entries, active)).toEqual([]);
    rmSync(file.path);
    expect(loadEarlierCalls(file.path, entries, active)).toEqual([]);
  });

  it('leave the active conversation its own entries (a preserved segment before the boundary)', async () => {
    const fixture = await ingestFixture('compactions');
    try {
      const { entries, active } = fixture.conversation();
      const kept = new Set(active.entries);
      const chosen = earlierEntries(entries, active);
      expect(chosen.length).toBeGreaterThan(0);
      expect(chosen.filter((item) => kept.has(item.entry))).toEqual([]);
      expect(active.entries.some((entry) => entry.offset < (active.boundary?.offset ?? 0))).toBe(true);
    } finally {
      fixture.close();
    }
  });

  it('are read in slices as at once, and stop when the signal aborts', async () => {
    session = await ingestHiddenFiles(dir);
    const { file, entries, active } = session.conversation();
    expect(await readEarlierCalls(file.path, entries, active)).toEqual(loadEarlierCalls(file.path, entries, active));
    await expect(readEarlierCalls(file.path, entries, active, AbortSignal.abort())).rejects.toThrow();
  });
});
