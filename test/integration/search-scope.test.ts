/**
 * Scoped searches find what is there, and every cut is said (issue 28, item 6): a phrase deep in
 * one large session is found by a search limited to it, and following the cursor walks every match
 * of a query (with or without session, project, time and kind filters) once, with no gap, however
 * many there are past the first batch of candidates.
 *
 * The corpus is written here: one large session (~14 MB, 10,000 lines) whose every prompt holds "retry" and
 * "budget" apart and one (in the middle) the phrase "retry budget"; and 1,000 small sessions, each
 * with three lines mentioning "warnings" (3,000 matches: more than the 2,000 the first batch takes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, searchFilled } from '../../client/index.js';
import type { SearchKind, SearchQueryResult } from '../../shared/protocol/search.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import { seededRandom } from '../helpers/seeded-random.mjs';

const BIG_SESSION = 'b16b16b1-0000-4000-8000-00000000e028';
const BIG_CWD = '/home/user/src/gateway';
const SHOP_CWD = '/home/user/src/shop';
const BIG_ROUNDS = 5_000;
/** The round whose prompt holds the phrase: far from both ends of the session's matches. */
const PHRASE_ROUND = 2_600;
/** Each response's text: ~2 KB of words the queries do not have, the bulk of a long session. */
const BULK = 'the gateway answered with status ok and the logs rotated; '.repeat(35);
const SMALL_SESSIONS = 1_000;
const SMALL_START_MS = Date.parse('2026-01-01T00:00:00.000Z');
const HOUR_MS = 3_600_000;

interface Line {
  uuid: string;
  sessionId: string;
  kind: SearchKind;
  hour: number;
}

function smallSessionId(index: number): string {
  return `5a11${String(index).padStart(4, '0')}-0000-4000-8000-00000000e028`;
}

/** The large session; returns the uuid of the prompt with the phrase. */
function writeBigSession(projectsDir: string): string {
  const writer = new TranscriptWriter({
    sessionId: BIG_SESSION,
    cwd: BIG_CWD,
    version: '2.1.197',
    startMs: Date.parse('2025-06-01T00:00:00.000Z'),
  });
  let phrase = '';
  for (let round = 0; round < BIG_ROUNDS; round++) {
    const text =
      round === PHRASE_ROUND
        ? `Round ${round}: set the retry budget to five attempts a minute.`
        : `Round ${round}: check the retry loop and the token budget of worker ${round}.`;
    const line = writer.prompt(text);
    if (round === PHRASE_ROUND) phrase = line.uuid as string;
    writer.response([{ type: 'text', text: `Round ${round} checked: ${BULK}` }], growingUsage(round));
  }
  writeTranscript(mainPath(projectsDir, BIG_CWD, BIG_SESSION), writer);
  return phrase;
}

/** The small sessions, session i an hour after session i-1; returns every line mentioning "warnings". */
function writeSmallSessions(projectsDir: string): Line[] {
  const lines: Line[] = [];
  for (let index = 0; index < SMALL_SESSIONS; index++) {
    const sessionId = smallSessionId(index);
    const writer = new TranscriptWriter({
      sessionId,
      cwd: SHOP_CWD,
      version: '2.1.197',
      startMs: SMALL_START_MS + index * HOUR_MS,
    });
    const add = (uuid: unknown, kind: SearchKind) => lines.push({ uuid: uuid as string, sessionId, kind, hour: index });
    add(writer.prompt(`Fix the compiler warnings in module ${index}.`).uuid, 'prompt');
    add(
      writer.response([{ type: 'text', text: `Fixed the warnings of module ${index}.` }], growingUsage(index))
        .entries[0]?.uuid,
      'assistant',
    );
    add(writer.prompt(`Any warnings left from the compiler in module ${index}?`).uuid, 'prompt');
    writer.response([{ type: 'text', text: 'None left.' }], growingUsage(index + 1));
    writeTranscript(mainPath(projectsDir, SHOP_CWD, sessionId), writer);
  }
  return lines;
}

describe('scoped searches find what is there, and every cut is said', () => {
  let sandbox: Sandbox;
  let client: Client;
  let phraseUuid: string;
  let warnings: Line[];

  type Params = Parameters<Client['searchQuery']>[0];
  /** Every page of a search, following its cursor; each hit's key, in order. */
  const walk = async (params: Params): Promise<{ keys: string[]; pages: SearchQueryResult[] }> => {
    const pages: SearchQueryResult[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await client.searchQuery({ ...params, ...(cursor === undefined ? {} : { cursor }) });
      pages.push(page);
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    return { keys: pages.flatMap((page) => page.hits.map((hit) => `${hit.sessionId}:${hit.uuid}`)), pages };
  };
  const keysOf = (lines: readonly Line[]) => lines.map((line) => `${line.sessionId}:${line.uuid}`).sort();

  beforeAll(async () => {
    sandbox = makeSandbox();
    phraseUuid = writeBigSession(sandbox.projectsDir);
    warnings = writeSmallSessions(sandbox.projectsDir);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    // The backfill of the corpus keeps the daemon busy: a status may wait longer than the default 3 s.
    client = createClient({ env: sandbox.env, autostart: false, timeoutMs: 30_000 });
    await eventually(
      async () => {
        const { ingest } = await client.daemonStatus();
        return (
          ingest.progress.state === 'live' &&
          ingest.progress.filesPending === 0 &&
          ingest.stats.files === SMALL_SESSIONS + 1
        );
      },
      'ingest to catch up',
      120_000,
    );
  }, 180_000);
  afterAll(() => client?.close());

  it('a phrase deep in one large session is found by a search limited to it', async () => {
    const params = { query: '"retry budget"', sessionId: BIG_SESSION };
    // One page either has it or says it stopped early, with the cursor that goes on.
    const first = await client.searchQuery(params);
    if (!first.hits.some((hit) => hit.uuid === phraseUuid)) {
      expect(first.nextCursor).not.toBeNull();
      expect(first.partial).toBe(true);
      expect(first.partialReason).toBe('time');
    }
    const filled = await searchFilled((query) => client.searchQuery(query), params, Number.POSITIVE_INFINITY);
    expect(filled.hits.map((hit) => hit.uuid)).toEqual([phraseUuid]);
    expect(filled.hits[0]?.snippet).toContain('«retry» «budget»');
    const { keys } = await walk(params);
    expect(keys).toEqual([`${BIG_SESSION}:${phraseUuid}`]);
  }, 120_000);

  it('memctl search --session prints the phrase found deep in the large session', async () => {
    const args = ['search', '"retry budget"', '--session', BIG_SESSION];
    let run = await runMemctl(sandbox, args);
    // memctl follows partial pages for up to 10 s; on a machine too busy for that, it says it was
    // cut and prints the command that goes on, which finds it.
    for (let page = 0; !run.stdout.includes(phraseUuid) && page < 100; page++) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('the search ran out of time before the page was full');
      const cursor = /--cursor (\S+)/.exec(run.stdout)?.[1];
      expect(cursor, run.stdout).toBeDefined();
      run = await runMemctl(sandbox, [...args, '--cursor', cursor as string]);
    }
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(phraseUuid);
    expect(run.stdout).toMatch(
      /every hit: 1 session in all|the last of the hits: 1 session on this page|1 session on this page; more hits/,
    );
  }, 120_000);

  it('a search past the first batch says there is more, and its cursor gets the rest: every session mentioning a word', async () => {
    const first = await client.searchQuery({ query: 'warnings', limit: 100 });
    expect(first.hits).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    const { keys } = await walk({ query: 'warnings', limit: 100 });
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual(keysOf(warnings));
    expect(new Set(keys.map((key) => key.split(':')[0])).size).toBe(SMALL_SESSIONS);
  }, 120_000);

  it('memctl search says when a page is not every hit, and prints the command with the cursor that goes on', async () => {
    const run = await runMemctl(sandbox, ['search', 'warnings', '--limit', '5']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/sessions? on this page; more hits \(and maybe more sessions\) follow/);
    const next = /memctl search (.*) --cursor (\S+)/.exec(run.stdout);
    expect(next?.[2]).toBeDefined();
    const more = await runMemctl(sandbox, ['search', 'warnings', '--limit', '5', '--cursor', next?.[2] as string]);
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).toContain('warnings');
  });

  it('property: following the cursor walks every match once, whatever the page size and filters', async () => {
    const random = seededRandom(28_6);
    const hourIso = (hour: number) => new Date(SMALL_START_MS + hour * HOUR_MS).toISOString();
    for (let run = 0; run < 8; run++) {
      const limit = 20 + Math.floor(random() * 81);
      const from = Math.floor(random() * SMALL_SESSIONS * 0.8);
      const to = from + 1 + Math.floor(random() * (SMALL_SESSIONS - from));
      const shape = run % 4;
      // Time-scoped, kind-scoped, project-scoped, and a phrase checked on the text.
      const cases: { params: Params; expected: Line[] }[] = [
        {
          params: { query: 'warnings', since: hourIso(from), until: hourIso(to), limit },
          expected: warnings.filter((line) => line.hour >= from && line.hour < to),
        },
        {
          params: { query: 'warnings', kinds: ['assistant'], limit },
          expected: warnings.filter((line) => line.kind === 'assistant'),
        },
        {
          params: { query: 'warnings', project: SHOP_CWD, since: hourIso(from), limit },
          expected: warnings.filter((line) => line.hour >= from),
        },
        {
          params: { query: '"compiler warnings"', limit },
          expected: warnings.filter((line) => line.kind === 'prompt' && warnings.indexOf(line) % 3 === 0),
        },
      ];
      const { params, expected } = cases[shape] as (typeof cases)[number];
      const { keys, pages } = await walk(params);
      expect(new Set(keys).size, JSON.stringify(params)).toBe(keys.length);
      expect([...keys].sort(), JSON.stringify(params)).toEqual(keysOf(expected));
      // A page with fewer hits than asked, before the last, says why.
      for (const page of pages.slice(0, -1))
        if (page.hits.length < limit) expect(page.partial, JSON.stringify(params)).toBe(true);
    }
  }, 120_000);
});
