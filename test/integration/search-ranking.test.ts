/**
 * `search.query` ranks a question by relevance (issue 33) over a real daemon: plain words are a
 * question (not every word must match), a rare word outweighs a common one, a session holding the
 * whole question outranks one holding a word of it, a prompt outweighs a tool's output, recency
 * breaks ties, one hit per session with its best passage, word forms match (timeouts, retried),
 * pages go on by cursor; FTS5 syntax and single words keep their exact, line-level meaning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { SearchHit } from '../../shared/protocol/search.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/user/src/harbor';
const DAY_MS = 86_400_000;
/** Sessions a few weeks back, a day apart: the order of their dates is known. */
const BASE_MS = Date.parse('2026-03-02T09:00:00.000Z');

const id = (n: number) => `7a5c0000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const SESSIONS = {
  rare: id(1),
  commonTwice: id(2),
  whole: id(3),
  oneWord: id(4),
  prompt: id(5),
  output: id(6),
  olderTwin: id(7),
  newerTwin: id(8),
  grouped: id(9),
  ospreyProject: id(10),
  heronProject: id(11),
  moduleMissing: id(12),
  moduleChosen: id(13),
};
const FILLERS = [id(20), id(21), id(22), id(23), id(24), id(25)];

interface Turn {
  prompt?: string;
  reply?: string;
  tool?: { name: string; input: Record<string, unknown>; result: string; error?: boolean };
}

function write(sandbox: Sandbox, sessionId: string, day: number, turns: readonly Turn[], cwd = CWD): void {
  const writer = new TranscriptWriter({ sessionId, cwd, version: '2.1.197', startMs: BASE_MS + day * DAY_MS });
  let n = 0;
  for (const turn of turns) {
    writer.prompt(turn.prompt ?? 'go on');
    if (turn.tool !== undefined) {
      const { name, input, result, error } = turn.tool;
      writer.toolRound(name, input, result, growingUsage(n++), 'Let me check.', error === true);
    }
    writer.response([{ type: 'text', text: turn.reply ?? 'Done.' }], growingUsage(n++));
  }
  writeTranscript(mainPath(sandbox.projectsDir, cwd, sessionId), writer);
}

function corpus(sandbox: Sandbox): void {
  // A common word: every filler deploys.
  for (const [at, filler] of FILLERS.entries())
    write(sandbox, filler, 10 + at, [
      { prompt: 'deploy the service to staging', reply: 'The deploy finished.' },
      { prompt: 'deploy again after the config change', reply: 'Deployed.' },
    ]);
  write(sandbox, SESSIONS.rare, 1, [{ prompt: 'look at the cache', reply: 'The zephyrine cache layer is stale.' }]);
  write(sandbox, SESSIONS.commonTwice, 20, [{ prompt: 'deploy deploy now please', reply: 'Deploying.' }]);
  write(sandbox, SESSIONS.whole, 2, [{ prompt: 'the flaky retry timeout in the gateway again', reply: 'Looking.' }]);
  write(sandbox, SESSIONS.oneWord, 21, [{ prompt: 'raise the timeout of the webhook', reply: 'Raised.' }]);
  write(sandbox, SESSIONS.prompt, 3, [{ prompt: 'kestrel ledger totals are off', reply: 'Checking.' }]);
  write(sandbox, SESSIONS.output, 22, [
    {
      prompt: 'run the report',
      tool: { name: 'Bash', input: { command: './report.sh' }, result: 'kestrel ledger totals are off' },
    },
  ]);
  write(sandbox, SESSIONS.olderTwin, 4, [{ prompt: 'pelican invoice export broke', reply: 'Ok.' }]);
  write(sandbox, SESSIONS.newerTwin, 5, [{ prompt: 'pelican invoice export broke', reply: 'Ok.' }]);
  write(sandbox, SESSIONS.grouped, 6, [
    { prompt: 'plan the marmot burrow migration', reply: 'A marmot plan.' },
    { prompt: 'next', reply: 'The marmot tables are moved.' },
    { prompt: 'and then', reply: 'Every marmot row is checked.' },
  ]);
  // The same fix in two projects; the question names one by its folder's word only.
  const fix = [{ prompt: 'the container dies at start', reply: 'The quokkalib module was missing: installed it.' }];
  write(sandbox, SESSIONS.ospreyProject, 7, fix, '/home/user/src/osprey-api');
  write(sandbox, SESSIONS.heronProject, 8, fix, '/home/user/src/heron-web');
  // The same package, once missing (by its error's name only), once chosen in a newer session's prompt.
  write(sandbox, SESSIONS.moduleMissing, 9, [
    {
      prompt: 'the worker container dies at start',
      tool: {
        name: 'Bash',
        input: { command: 'python -m worker' },
        result: "Error: Exit code 1\nModuleNotFoundError: No module named 'wombatlib'",
        error: true,
      },
      reply: 'Installed it and pinned it.',
    },
  ]);
  write(sandbox, SESSIONS.moduleChosen, 23, [
    { prompt: 'compare wombatlib and numbatlib for the worker and pick one', reply: 'numbatlib it is.' },
  ]);
}

describe('search.query ranks a question by relevance (issue 33)', () => {
  let sandbox: Sandbox;
  let client: Client;
  const ask = async (query: string, limit = 20): Promise<SearchHit[]> =>
    (await client.searchQuery({ query, limit })).hits;
  const sessionsOf = (hits: readonly SearchHit[]) => hits.map((hit) => hit.sessionId);

  beforeAll(async () => {
    sandbox = makeSandbox();
    corpus(sandbox);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files >= 17;
    }, 'ingest to catch up');
  });
  afterAll(() => client?.close());

  it('answers a question whose words are not all in one session, the rarer word first', async () => {
    const hits = await ask('which session mentioned zephyrine when we deploy?');
    expect(hits[0]?.sessionId).toBe(SESSIONS.rare);
    // The common word's sessions follow: a question is not a conjunction.
    expect(sessionsOf(hits)).toContain(SESSIONS.commonTwice);
  });

  it('puts the session holding the whole question above one holding a word of it, a newer one', async () => {
    const hits = await ask('flaky retry timeout');
    expect(sessionsOf(hits).slice(0, 2)).toEqual([SESSIONS.whole, SESSIONS.oneWord]);
  });

  it('filters a question by time', async () => {
    const hits = (await client.searchQuery({ query: 'flaky retry timeout', since: '2026-03-20T00:00:00Z' })).hits;
    expect(sessionsOf(hits)).toEqual([SESSIONS.oneWord]);
  });

  it("matches the question's words in their other forms", async () => {
    const hits = await ask('timeouts retried flakes');
    expect(hits[0]?.sessionId).toBe(SESSIONS.whole);
  });

  it("weighs a prompt above a tool's output with the same words, though the output is newer", async () => {
    const hits = await ask('kestrel ledger totals');
    expect(sessionsOf(hits).slice(0, 2)).toEqual([SESSIONS.prompt, SESSIONS.output]);
    expect(hits[1]?.kind).toBe('output');
  });

  it("counts a question's word in the session's project folder (issue 33)", async () => {
    const hits = await ask('which osprey service was missing quokkalib?');
    // The heron session is newer: without the project's word it would come first.
    expect(sessionsOf(hits).slice(0, 2)).toEqual([SESSIONS.ospreyProject, SESSIONS.heronProject]);
  });

  it('finds what the question names in other words: a missing package by its error, ModuleNotFoundError', async () => {
    const hits = await ask('which worker was missing the wombatlib dependency?');
    expect(sessionsOf(hits).slice(0, 2)).toEqual([SESSIONS.moduleMissing, SESSIONS.moduleChosen]);
  });

  it('breaks a tie by recency', async () => {
    const hits = await ask('pelican invoice export');
    expect(sessionsOf(hits).slice(0, 2)).toEqual([SESSIONS.newerTwin, SESSIONS.olderTwin]);
    expect(hits[0]?.score).toBeGreaterThanOrEqual(hits[1]?.score ?? Number.POSITIVE_INFINITY);
  });

  it('gives one hit per session, its best passage', async () => {
    const hits = await ask('marmot burrow migration tables');
    expect(sessionsOf(hits)).toEqual([SESSIONS.grouped]);
    expect(hits[0]?.kind).toBe('prompt');
    expect(hits[0]?.snippet).toContain('«marmot» «burrow» «migration»');
  });

  it('keeps the exact, line-level meaning of FTS5 syntax and of a single word', async () => {
    expect((await ask('marmot')).length).toBeGreaterThan(3);
    expect((await ask('marmot AND burrow')).map((hit) => hit.kind)).toEqual(['prompt']);
    expect(await ask('"burrow marmot"')).toEqual([]);
    expect(await ask('zephyrine AND deploy')).toEqual([]);
  });

  it('reads punctuation in a question as words, and pages by cursor', async () => {
    const first = await client.searchQuery({ query: 'deploy, deploy: where did we deploy?', limit: 3 });
    expect(first.hits).toHaveLength(3);
    expect(first.nextCursor).not.toBeNull();
    const second = await client.searchQuery({
      query: 'deploy, deploy: where did we deploy?',
      limit: 3,
      cursor: first.nextCursor ?? '',
    });
    const seen = [...sessionsOf(first.hits), ...sessionsOf(second.hits)];
    expect(new Set(seen).size).toBe(seen.length);
    await expect(client.searchQuery({ query: 'deploy now', cursor: 'w1:1-2::3' })).rejects.toThrow(/cursor/);
  });
});
