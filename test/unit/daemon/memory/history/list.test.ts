import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HistoryQuery, listHistory } from '../../../../../daemon/memory/history/list.js';
import { readHistoryPage } from '../../../../../daemon/memory/history/page.js';
import { historyFile, pasteCacheDir } from '../../../../../shared/paths.js';
import { ErrorCode, RpcError } from '../../../../../shared/protocol/errors.js';
import type { HistoryEntry } from '../../../../../shared/protocol/history.js';
import { FIXTURES } from '../../../../helpers/ingest.js';

const INTERACTIVE = join(FIXTURES, 'interactive');
const FIXTURE_SESSION = '11e6a47c-5a1e-4b69-9de0-84744c9fc6b8';
const FIXTURE_PROJECT = '/home/user/src/feed-importer';
/** 2026-01-01T00:00:00Z: generated histories start here, one prompt a second. */
const BASE_MS = Date.UTC(2026, 0, 1);

interface InteractiveManifest {
  interactive: { history: string[]; pastes: { id: number; chars: number; text: string }[] };
}

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-history-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function copyFixture(): void {
  cpSync(join(INTERACTIVE, 'history.jsonl'), historyFile(root));
  cpSync(join(INTERACTIVE, 'paste-cache'), pasteCacheDir(root), { recursive: true });
}

interface LineFields {
  display?: unknown;
  timestamp?: unknown;
  project?: unknown;
  sessionId?: unknown;
  pastedContents?: unknown;
}

function line(index: number, fields: LineFields = {}): string {
  return JSON.stringify({
    display: `prompt ${index}`,
    pastedContents: {},
    timestamp: BASE_MS + index * 1000,
    project: index % 3 === 0 ? '/home/user/src/alpha' : '/home/user/src/beta',
    sessionId: `session-${index % 5}`,
    ...fields,
  });
}

function writeHistory(lines: string[], tail = '\n'): void {
  writeFileSync(historyFile(root), lines.join('\n') + tail);
}

/** Every page, following nextBefore; bounded by the number of entries it can hold. */
async function allPages(
  query: HistoryQuery,
  maxPages: number,
): Promise<{ entries: HistoryEntry[]; pages: number; badLines: number }> {
  const entries: HistoryEntry[] = [];
  let badLines = 0;
  let before: string | undefined;
  for (let pages = 1; pages <= maxPages; pages++) {
    const result = await listHistory(root, before === undefined ? query : { ...query, before });
    entries.push(...result.entries);
    badLines += result.badLines;
    if (result.nextBefore === null) return { entries, pages, badLines };
    expect(result.nextBefore).toBe(result.entries.at(-1)?.timestamp);
    before = result.nextBefore;
  }
  throw new Error(`more than ${maxPages} pages`);
}

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(error)}`);
  return error;
}

describe('listHistory on the interactive fixture', () => {
  it('returns the recorded prompts newest first, with the long paste read from paste-cache', async () => {
    copyFixture();
    const manifest = JSON.parse(readFileSync(join(INTERACTIVE, 'manifest.json'), 'utf8')) as InteractiveManifest;
    const result = await listHistory(root, {});
    expect(result.badLines).toBe(0);
    expect(result.nextBefore).toBeNull();
    expect(result.entries.map((entry) => entry.display)).toEqual([...manifest.interactive.history].reverse());
    for (const entry of result.entries) {
      expect(entry.project).toBe(FIXTURE_PROJECT);
      expect(entry.sessionId).toBe(FIXTURE_SESSION);
    }
    const raw = readFileSync(historyFile(root), 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { timestamp: number });
    expect(result.entries.map((entry) => entry.timestamp)).toEqual(
      raw.map((entry) => new Date(entry.timestamp).toISOString()).reverse(),
    );

    const withPaste = result.entries.at(-1);
    const [expected] = manifest.interactive.pastes;
    if (expected === undefined) throw new Error('the manifest records a paste');
    expect(withPaste?.pastes).toEqual([
      {
        id: expected.id,
        type: 'text',
        content: expected.text,
        contentHash: '70acbeea6d4976e8',
        missing: false,
        chars: expected.chars,
      },
    ]);
    for (const entry of result.entries.slice(0, -1)) expect(entry.pastes).toEqual([]);
  });

  it('filters by project path, project folder name and session', async () => {
    copyFixture();
    appendFileSync(historyFile(root), `${line(1, { project: '/home/user/src/other', sessionId: 'other-session' })}\n`);
    const displays = async (query: HistoryQuery) =>
      (await listHistory(root, query)).entries.map((entry) => entry.display);
    const fixturePrompts = await displays({ project: FIXTURE_PROJECT });
    expect(fixturePrompts).toHaveLength(4);
    expect(await displays({ project: '-home-user-src-feed-importer' })).toEqual(fixturePrompts);
    expect(await displays({ sessionId: FIXTURE_SESSION })).toEqual(fixturePrompts);
    expect(await displays({ project: '-home-user-src-other' })).toEqual(['prompt 1']);
    expect(await displays({ sessionId: 'other-session', project: FIXTURE_PROJECT })).toEqual([]);
    expect(await displays({ project: '/home/user/src' })).toEqual([]);
    expect(await displays({})).toHaveLength(5);
  });
});

describe('listHistory pages', () => {
  const TOTAL = 20_000;

  beforeEach(() => {
    writeHistory(Array.from({ length: TOTAL }, (_, index) => line(index)));
  });

  it('join up to the whole history, newest first, without duplicates or gaps', async () => {
    const { entries, pages } = await allPages({ limit: 100 }, TOTAL / 100 + 1);
    expect(pages).toBe(TOTAL / 100);
    expect(entries.map((entry) => entry.display)).toEqual(
      Array.from({ length: TOTAL }, (_, index) => `prompt ${TOTAL - 1 - index}`),
    );
  });

  it('join up under a filter too', async () => {
    const { entries } = await allPages({ project: '-home-user-src-alpha', sessionId: 'session-0', limit: 100 }, TOTAL);
    const expected = Array.from({ length: TOTAL }, (_, index) => TOTAL - 1 - index).filter((index) => index % 15 === 0);
    expect(entries.map((entry) => entry.display)).toEqual(expected.map((index) => `prompt ${index}`));
  });

  it('hold at most limit entries, 100 by default', async () => {
    expect((await listHistory(root, {})).entries).toHaveLength(100);
    expect((await listHistory(root, { limit: 1 })).entries.map((entry) => entry.display)).toEqual([
      `prompt ${TOTAL - 1}`,
    ]);
  });

  it('return only entries strictly older than before', async () => {
    const before = new Date(BASE_MS + 500 * 1000).toISOString();
    const result = await listHistory(root, { before, limit: 3 });
    expect(result.entries.map((entry) => entry.display)).toEqual(['prompt 499', 'prompt 498', 'prompt 497']);
    expect(result.nextBefore).toBe(new Date(BASE_MS + 497 * 1000).toISOString());
    const oldest = await listHistory(root, { before: new Date(BASE_MS + 2000).toISOString() });
    expect(oldest.entries.map((entry) => entry.display)).toEqual(['prompt 1', 'prompt 0']);
    expect(oldest.nextBefore).toBeNull();
  });

  it('read the newest page from the end of the file, not the whole file', async () => {
    const size = statSync(historyFile(root)).size;
    const page = await readHistoryPage(historyFile(root), {}, 100);
    expect(page.records).toHaveLength(100);
    expect(page.bytesRead).toBeGreaterThan(0);
    expect(page.bytesRead).toBeLessThan(size / 20);
    const filtered = await readHistoryPage(historyFile(root), { sessionId: 'session-1' }, 10);
    expect(filtered.bytesRead).toBeLessThan(size / 20);
  });
});

describe('listHistory page boundaries', () => {
  it('join up for limits that do not divide the history, across chunk boundaries', async () => {
    const total = 300;
    writeHistory(Array.from({ length: total }, (_, index) => line(index)));
    for (const limit of [1, 7, 37]) {
      const { entries, pages } = await allPages({ limit }, total + 1);
      expect(pages, `limit ${limit}`).toBe(Math.ceil(total / limit));
      expect(entries.map((entry) => entry.display)).toEqual(
        Array.from({ length: total }, (_, index) => `prompt ${total - 1 - index}`),
      );
    }
  });

  it('never split a run of same-millisecond entries between pages', async () => {
    const lines = Array.from({ length: 10 }, (_, index) =>
      line(index, { timestamp: BASE_MS + (index >= 3 && index <= 6 ? 3000 : index * 1000) }),
    );
    writeHistory(lines);
    const first = await listHistory(root, { limit: 5 });
    // 9, 8, 7 and then 6..3 share a millisecond: the run moves to the next page whole.
    expect(first.entries.map((entry) => entry.display)).toEqual(['prompt 9', 'prompt 8', 'prompt 7']);
    const { entries } = await allPages({ limit: 5 }, 10);
    expect(entries.map((entry) => entry.display)).toEqual(
      Array.from({ length: 10 }, (_, index) => `prompt ${9 - index}`),
    );
  });

  it('report no next page when the page is full and nothing older matches', async () => {
    writeHistory([line(0, { sessionId: 'x' }), line(1, { sessionId: 'y' }), line(2, { sessionId: 'x' })]);
    expect((await listHistory(root, { sessionId: 'x', limit: 2 })).nextBefore).toBeNull();
    expect((await listHistory(root, { sessionId: 'y', limit: 1 })).nextBefore).toBeNull();
    expect((await listHistory(root, { limit: 2 })).nextBefore).toBe(new Date(BASE_MS + 1000).toISOString());
  });
});

describe('listHistory on damaged input', () => {
  it('returns an empty page for a missing history', async () => {
    expect(await listHistory(root, {})).toEqual({ entries: [], nextBefore: null, badLines: 0 });
    expect(await listHistory(join(root, 'no', 'such', 'dir'), { limit: 5 })).toEqual({
      entries: [],
      nextBefore: null,
      badLines: 0,
    });
  });

  it('skips and counts lines that are not entries', async () => {
    const bad = [
      '{"display": "torn',
      'not json at all',
      '[1, 2, 3]',
      'null',
      line(90, { timestamp: '2026-01-01T00:00:00Z' }),
      line(91, { display: 42 }),
      line(92, { project: null }),
      line(93, { sessionId: 7 }),
      line(94, { pastedContents: [] }),
      line(95, { pastedContents: { 1: { id: '1', type: 'text', content: 'x' } } }),
      line(96, { pastedContents: { 1: { id: 1, type: 'video', content: 'x' } } }),
      line(97, { pastedContents: { 1: { id: 1, type: 'text', contentHash: 5 } } }),
      line(98, { timestamp: 1e20 }),
    ];
    writeHistory([line(0), ...bad.slice(0, 6), '', '   ', line(1), ...bad.slice(6), line(2)]);
    const result = await listHistory(root, {});
    expect(result.entries.map((entry) => entry.display)).toEqual(['prompt 2', 'prompt 1', 'prompt 0']);
    expect(result.badLines).toBe(bad.length);
  });

  it('counts a bad line once across pages', async () => {
    writeHistory([line(0), line(1), 'garbage one', line(2), line(3), 'garbage two', line(4), line(5)]);
    const { entries, badLines } = await allPages({ limit: 2 }, 10);
    expect(entries.map((entry) => entry.display)).toEqual([
      'prompt 5',
      'prompt 4',
      'prompt 3',
      'prompt 2',
      'prompt 1',
      'prompt 0',
    ]);
    expect(badLines).toBe(2);
    // Bad lines before the first entry, after a page that ends on it.
    writeHistory(['garbage', '', 'more garbage', line(0), line(1)]);
    expect(await allPages({ limit: 2 }, 3)).toMatchObject({ pages: 1, badLines: 2 });
  });

  it('leaves out a half-written last line without counting it', async () => {
    const whole = line(2);
    writeHistory([line(0), line(1), whole.slice(0, 20)], '');
    expect(await listHistory(root, {})).toMatchObject({
      badLines: 0,
      entries: [{ display: 'prompt 1' }, { display: 'prompt 0' }],
    });
    // Even a last line that parses is only whole once its newline is written.
    writeHistory([line(0), line(1), whole], '');
    expect((await listHistory(root, {})).entries.map((entry) => entry.display)).toEqual(['prompt 1', 'prompt 0']);
    appendFileSync(historyFile(root), '\n');
    expect((await listHistory(root, {})).entries.map((entry) => entry.display)).toEqual([
      'prompt 2',
      'prompt 1',
      'prompt 0',
    ]);
  });

  it('rejects a before that is not a time, and a limit out of range', async () => {
    writeHistory([line(0)]);
    expect((await rejection(listHistory(root, { before: 'yesterday' }))).code).toBe(ErrorCode.InvalidParams);
    expect((await rejection(listHistory(root, { limit: 0 }))).code).toBe(ErrorCode.InvalidParams);
    expect((await rejection(listHistory(root, { limit: 101 }))).code).toBe(ErrorCode.InvalidParams);
  });

  it('stops when the caller cancels', async () => {
    writeHistory([line(0)]);
    const controller = new AbortController();
    controller.abort(new Error('caller left'));
    await expect(listHistory(root, {}, { signal: controller.signal })).rejects.toThrow('caller left');
  });
});

describe('listHistory pastes', () => {
  function pasteLine(pastedContents: Record<string, unknown>): string {
    return line(0, { pastedContents });
  }

  it('uses inline content as is, and reads hashed content from paste-cache', async () => {
    mkdirSync(pasteCacheDir(root));
    writeFileSync(join(pasteCacheDir(root), 'abcdef0123456789.txt'), 'cached text ✓');
    writeHistory([
      pasteLine({
        2: { id: 2, type: 'text', contentHash: 'abcdef0123456789' },
        1: { id: 1, type: 'text', content: 'inline text' },
        3: { id: 3, type: 'image' },
      }),
    ]);
    const [entry] = (await listHistory(root, {})).entries;
    expect(entry?.pastes).toEqual([
      { id: 1, type: 'text', content: 'inline text', contentHash: null, missing: false, chars: 11 },
      { id: 2, type: 'text', content: 'cached text ✓', contentHash: 'abcdef0123456789', missing: false, chars: 13 },
      { id: 3, type: 'image', content: null, contentHash: null, missing: false, chars: null },
    ]);
  });

  it('reports a paste whose paste-cache file is gone as missing, not as an error', async () => {
    writeHistory([pasteLine({ 1: { id: 1, type: 'text', contentHash: '0123456789abcdef' } })]);
    const result = await listHistory(root, {});
    expect(result.badLines).toBe(0);
    expect(result.entries[0]?.pastes).toEqual([
      { id: 1, type: 'text', content: null, contentHash: '0123456789abcdef', missing: true, chars: null },
    ]);
  });

  it('never reads a file outside paste-cache, whatever the hash says', async () => {
    mkdirSync(pasteCacheDir(root));
    // Each hash below would reach one of these files if it were used as a name.
    writeFileSync(join(root, 'secret.txt'), 'SECRET');
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'deadbeefdeadbeef.txt'), 'SECRET');
    writeFileSync(join(pasteCacheDir(root), '.txt'), 'SECRET');
    const hashes = [
      '../secret',
      '../../etc/passwd',
      '../sub/deadbeefdeadbeef',
      `${pasteCacheDir(root)}/../secret`,
      '',
      'deadbeef\0',
    ];
    writeHistory([
      pasteLine(
        Object.fromEntries(
          hashes.map((contentHash, index) => [index + 1, { id: index + 1, type: 'text', contentHash }]),
        ),
      ),
    ]);
    const pastes = (await listHistory(root, {})).entries[0]?.pastes ?? [];
    expect(pastes).toHaveLength(hashes.length);
    for (const paste of pastes) expect(paste).toMatchObject({ content: null, missing: true, chars: null });
  });
});
