/**
 * Bad and extreme timestamps over a real daemon (issue 27, item 10). A transcript line timestamped
 * `+275760-09-13T00:00:00.000Z` (the last instant JavaScript represents) made every usage.report
 * fail with InternalError from then on. Now every shape of bad timestamp (far future, far past,
 * six-digit years, year 0, impossible days, leap seconds, non-ISO text, numbers, objects, missing)
 * is counted as a bad value and kept out of date arithmetic: every answer that reads dates still
 * answers, over the lines whose timestamps are good.
 */
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { type Line, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const CWD = '/home/u/src/dates';
/** A session with good lines and lines of every bad shape. */
const MIXED = '5e5e5e5e-1111-4a4a-8b8b-000000000001';
/** A session whose every line is timestamped at the end of JavaScript's time. */
const EXTREME = '5e5e5e5e-2222-4a4a-8b8b-000000000002';
const END_OF_TIME = '+275760-09-13T00:00:00.000Z';
/** The extreme session's lines: a prompt, a response of two entries, a tool result. */
const EXTREME_LINES = 4;

/** The shapes the issue names, each once on a response and once on a prompt. */
const BAD_TIMESTAMPS: readonly unknown[] = [
  END_OF_TIME,
  '-271821-04-20T00:00:00.000Z',
  '+002026-03-02T10:00:00.000Z',
  '0000-01-01T00:00:00.000Z',
  '1969-07-20T20:17:40.000Z',
  '2999-01-01T00:00:00.000Z',
  '2026-02-30T10:00:00.000Z',
  '2026-03-02T23:59:60.000Z',
  '2026-13-45T99:99:99Z',
  'March 2, 2026 10:00',
  '2026-03-02',
  'not a date',
  '',
  1_772_445_600_000,
  { at: 1 },
  null,
];

function mixedSession(): TranscriptWriter {
  const main = new TranscriptWriter({
    sessionId: MIXED,
    cwd: CWD,
    version: '2.1.38',
    startMs: Date.parse('2026-03-02T09:00:00.000Z'),
  });
  main.prompt('Sort the dates out');
  main.toolRound('Read', { file_path: `${CWD}/dates.ts` }, 'export {}', {
    input: 5,
    cacheWrite: 100,
    cacheRead: 1_000,
    output: 50,
  });
  for (const [n, timestamp] of BAD_TIMESTAMPS.entries()) {
    const { entries } = main.response([{ type: 'text', text: `bad timestamp ${n}` }], {
      input: 1,
      cacheWrite: 0,
      cacheRead: 0,
      output: 1_000,
    });
    for (const entry of entries) setTimestamp(entry, timestamp);
    setTimestamp(main.prompt(`prompt with bad timestamp ${n} needle`), timestamp);
  }
  main.prompt('And a last good prompt needle');
  return main;
}

function setTimestamp(line: Line, timestamp: unknown): void {
  if (timestamp === null) delete line.timestamp;
  else line.timestamp = timestamp;
}

function extremeSession(): TranscriptWriter {
  const main = new TranscriptWriter({ sessionId: EXTREME, cwd: CWD, version: '2.1.38' });
  main.prompt('Everything here happens at the end of time needle');
  main.toolRound('Bash', { command: 'date' }, 'Sat Sep 13 00:00:00 UTC 275760', {
    input: 7,
    cacheWrite: 0,
    cacheRead: 0,
    output: 70,
  });
  for (const line of main.lines) line.timestamp = END_OF_TIME;
  return main;
}

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  if (ingest.progress.state !== 'live' || ingest.progress.filesPending !== 0 || ingest.stats.files < 2) return false;
  return (await client.usageReport({})).index.state === 'ready';
}

describe('bad and extreme timestamps', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, MIXED), mixedSession());
    writeTranscript(mainPath(sandbox.projectsDir, CWD, EXTREME), extremeSession());
    keepForFile(sandbox, await startDaemon(sandbox));
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest and the usage book to catch up');
    return () => client.close();
  });

  it('usage.report answers by day, project and model, counting only the good responses', async () => {
    for (const by of ['day', 'project', 'model'] as const) {
      const report = await client.usageReport({ by, timezone: 'UTC' });
      expect(report.totals, by).toMatchObject({ responses: 1, input: 5, output: 50 });
      if (by === 'day') {
        expect(report.rows.map((row) => row.key)).toEqual(['2026-03-02']);
        // The sparkline's days run from the first day with usage to today, not to the end of time.
        expect(report.daily[0]?.day).toBe('2026-03-02');
        expect(report.daily.every((day) => /^20\d\d-/.test(day.day))).toBe(true);
      }
    }
    const windowed = await client.usageReport({ since: '2026-03-01', until: '2026-03-03', timezone: 'UTC' });
    expect(windowed.totals.responses).toBe(1);
  });

  it('sessions.list and sessions.get give activity from the good timestamps only', async () => {
    const list = await client.sessionsList({ all: true });
    const mixed = list.sessions.find((session) => session.sessionId === MIXED);
    const extreme = list.sessions.find((session) => session.sessionId === EXTREME);
    expect(mixed?.firstActivity).toBe('2026-03-02T09:00:01.000Z');
    expect(mixed?.lastActivity).not.toBeNull();
    expect(Date.parse(mixed?.lastActivity ?? '')).toBeLessThan(Date.parse('2026-03-03T00:00:00.000Z'));
    expect(extreme).toMatchObject({ firstActivity: null, lastActivity: null });
    // The bad timestamps are counted where the session's bad lines are.
    expect(mixed?.badTimestamps).toBe(BAD_TIMESTAMPS.length * 2);
    expect(extreme?.badTimestamps).toBe(EXTREME_LINES);
    expect(mixed?.badLines).toBe(0);
    const got = await client.sessionsGet({ sessionId: EXTREME });
    expect(got).toMatchObject({ firstActivity: null, lastActivity: null, badTimestamps: EXTREME_LINES });
    const recent = await client.sessionsList({ activeWithinMs: 3_600_000 });
    expect(recent.sessions.map((session) => session.sessionId)).not.toContain(EXTREME);
  });

  it('daemon.status counts the bad timestamps beside the bad lines', async () => {
    const { ingest } = await client.daemonStatus();
    expect(ingest.stats.badTimestamps).toBe(BAD_TIMESTAMPS.length * 2 + EXTREME_LINES);
    expect(ingest.stats.badLines).toBe(0);
  });

  it('search answers with since and until, and finds lines with bad timestamps only without bounds', async () => {
    const all = await client.searchQuery({ query: 'needle' });
    expect(all.hits.length).toBeGreaterThan(0);
    for (const since of ['2026-03-01T00:00:00Z', '2000-01-01T00:00:00Z', '30d']) {
      const bounded = await client.searchQuery({ query: 'needle', since, until: '2099-01-01T00:00:00Z' });
      expect(bounded.hits.every((hit) => hit.timestamp === null || hit.timestamp.startsWith('2026-'))).toBe(true);
    }
    expect((await client.searchQuery({ query: 'needle', since: '2100-01-01T00:00:00Z' })).hits).toEqual([]);
    // Bounds at the ends of time: `+275760…` sorted before every stored time, and a span this long threw.
    expect((await client.searchQuery({ query: 'needle', since: END_OF_TIME })).hits).toEqual([]);
    const timed = all.hits.filter((hit) => hit.timestamp !== null).length;
    expect(timed).toBeGreaterThan(0);
    expect((await client.searchQuery({ query: 'needle', since: '99999999999d' })).hits.length).toBe(timed);
  });

  it('archive.list answers', async () => {
    const archive = await client.archiveList({});
    expect(Array.isArray(archive.sessions)).toBe(true);
  });

  it('export md and html answer for both sessions', async () => {
    for (const sessionId of [MIXED, EXTREME])
      for (const format of ['md', 'html'] as const) {
        const page = await client.exportSession({ sessionId, format });
        expect(page.content.length, `${sessionId} ${format}`).toBeGreaterThan(0);
        expect(page.content).not.toContain(END_OF_TIME);
      }
  });

  it('memctl usage and memctl sessions answer', async () => {
    const usage = await runMemctl(sandbox, ['usage', '--timezone', 'UTC']);
    expect(usage.stderr).toBe('');
    expect(usage.code).toBe(0);
    const sessions = await runMemctl(sandbox, ['sessions', '--all']);
    expect(sessions.stderr).toBe('');
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toContain(EXTREME.slice(0, 8));
  });
});

/** The usage book's quarter hour (daemon/usage/days.ts). */
const SLOT_MS = 15 * 60_000;
/** What memd before issue 27 stored for a line timestamped far in the future: the text as it was. */
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

/**
 * Rewrites a database as memd before issue 27 left it after reading the extreme session with
 * timestamps it did not check: schema 15, the timestamps kept as written in entries, files and the
 * session's aggregate, and the response counted in the usage book at the end of time's quarter hour.
 */
function asWrittenBeforeTheFix(dbPath: string): void {
  const db = new Database(dbPath);
  try {
    db.transaction(() => {
      const file = db.prepare('SELECT id, project FROM files WHERE session_id = ?').get(EXTREME) as {
        id: number;
        project: string;
      };
      db.prepare('UPDATE entries SET timestamp = ? WHERE file_id = ?').run(FAR_FUTURE, file.id);
      db.prepare('UPDATE files SET last_activity = ? WHERE id = ?').run(FAR_FUTURE, file.id);
      db.prepare(
        "UPDATE session_aggregates SET last_activity = ?, state = json_set(state, '$.last', json_object('key', ?, 'text', ?)) WHERE session_id = ?",
      ).run(FAR_FUTURE, FAR_FUTURE, FAR_FUTURE, EXTREME);
      const slot = Math.floor(Date.parse(END_OF_TIME) / SLOT_MS);
      db.prepare('UPDATE usage_candidates SET slot = ? WHERE file_id = ?').run(slot, file.id);
      db.prepare('DELETE FROM usage_slots WHERE project = ? AND input = 7').run(file.project);
      db.prepare(`INSERT INTO usage_slots (slot, project, model, responses, input, output, cache_creation, cache_read, cache_5m, cache_1h)
                  VALUES (?, ?, 'claude-sonnet-4-5-20250929', 1, 7, 70, 0, 0, 0, 0)`).run(slot, file.project);
      // A file whose newest timestamp is good is not read again: its response at the end of time stays in the book, never read.
      db.prepare(`INSERT INTO usage_slots (slot, project, model, responses, input, output, cache_creation, cache_read, cache_5m, cache_1h)
                  VALUES (?, ?, 'claude-sonnet-4-5-20250929', 1, 1000, 1000, 0, 0, 0, 0)`).run(slot - 1, file.project);
      db.exec('ALTER TABLE files DROP COLUMN bad_timestamps');
      db.pragma('user_version = 15');
    })();
  } finally {
    db.close();
  }
}

describe('an index written before timestamps were checked', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, MIXED), mixedSession());
    writeTranscript(mainPath(sandbox.projectsDir, CWD, EXTREME), extremeSession());
    let daemon: DaemonProcess = await startDaemon(sandbox);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'the first ingest');
    await client.daemonShutdown({ reason: 'test: an older database' });
    await daemon.exited;
    client.close();
    asWrittenBeforeTheFix(sandbox.dbPath);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    return () => client.close();
  });

  it('answers usage.report at once, and reads the files with bad timestamps again', async () => {
    for (const by of ['day', 'project', 'model'] as const) {
      const report = await client.usageReport({ by, timezone: 'UTC' });
      expect(report.rows.every((row) => !row.key.includes('275760'))).toBe(true);
      expect(report.totals.input, by).toBeLessThan(1_000);
    }
    await eventually(() => caughtUp(client), 'ingest to catch up');
    await eventually(
      async () => (await client.sessionsGet({ sessionId: EXTREME })).badTimestamps === EXTREME_LINES,
      'the extreme session to be read again',
    );
    expect(await client.sessionsGet({ sessionId: EXTREME })).toMatchObject({ firstActivity: null, lastActivity: null });
    const list = await client.sessionsList({ all: true });
    expect(list.sessions.find((session) => session.sessionId === EXTREME)?.lastActivity).toBeNull();
    // The first session is newest again: the far-future time no longer puts the other one first.
    expect(list.sessions[0]?.sessionId).toBe(MIXED);
    await eventually(
      async () => (await client.usageReport({ timezone: 'UTC' })).totals.responses === 1,
      'the book to take the bad response back',
    );
    const report = await client.usageReport({ timezone: 'UTC' });
    expect(report.totals).toMatchObject({ input: 5, output: 50 });
    // Files whose stored timestamps were all good or absent are not read again: their count starts at 0.
    expect((await client.daemonStatus()).ingest.stats.badTimestamps).toBe(EXTREME_LINES);
  });
});
