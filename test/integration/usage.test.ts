/**
 * usage.report and memctl usage over a real daemon (issue 18). The expected figures are ccusage
 * 20.0.24's (`ccusage daily --json --offline --timezone TZ`, its native linux-x64 binary) on the
 * same files: the recorded fixtures, and the usage corpus (test/helpers/usage-corpus.ts) of split
 * responses with placeholder output tokens, one across midnight UTC and one across midnight in
 * India, a resumed session that repeats its parent's responses, a sub-agent replay and an unpriced
 * model; then the same corpus with transcripts cut short. Costs are compared to the millionth of a
 * dollar: ccusage adds per-response costs, memd prices summed tokens (float rounding apart, equal).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { UsageFigures, UsageReportResult } from '../../shared/protocol/usage.js';
import { createClient } from '../helpers/client.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { mainPath } from '../helpers/real-shapes.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';
import {
  BILLING_CWD,
  BILLING_SESSION,
  NIGHT_CWD,
  NIGHT_SESSION,
  RESUMED_SESSION,
  writeUsageCorpus,
} from '../helpers/usage-corpus.js';

const COST_DIGITS = 6;

/** One of ccusage's daily rows: the figures it prints, with its period as `key`. */
interface Expected {
  key: string;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  costUsd: number;
  models?: string[];
}

/** Ingest has read every file, and the usage book has counted what it read. */
async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  if (ingest.progress.state !== 'live' || ingest.progress.filesPending !== 0 || ingest.stats.files === 0) return false;
  return (await client.usageReport({})).index.state === 'ready';
}

function expectFigures(
  actual: (UsageFigures & { key?: string; models: string[] }) | undefined,
  expected: Expected,
): void {
  expect(actual, expected.key).toBeDefined();
  const { input, output, cacheCreation, cacheRead, models } = actual as UsageFigures & { models: string[] };
  expect({ input, output, cacheCreation, cacheRead }, expected.key).toEqual({
    input: expected.input,
    output: expected.output,
    cacheCreation: expected.cacheCreation,
    cacheRead: expected.cacheRead,
  });
  expect(actual?.costUsd, expected.key).toBeCloseTo(expected.costUsd, COST_DIGITS);
  if (expected.models) expect(models, expected.key).toEqual(expected.models);
}

/** Whether a response of the transcript has entries before `instant` and at or after it. */
function straddles(path: string, instant: string): boolean {
  const sides = new Map<string, Set<boolean>>();
  for (const line of readFileSync(path, 'utf8').trim().split('\n')) {
    const entry = JSON.parse(line) as { type: string; timestamp: string; message?: { id?: string } };
    const id = entry.message?.id;
    if (entry.type === 'assistant' && id !== undefined)
      sides.set(id, (sides.get(id) ?? new Set()).add(entry.timestamp < instant));
  }
  return [...sides.values()].some((side) => side.size === 2);
}

function expectRows(report: UsageReportResult, expected: readonly Expected[]): void {
  expect(report.rows.map((row) => row.key)).toEqual(expected.map((row) => row.key));
  for (const row of expected)
    expectFigures(
      report.rows.find((candidate) => candidate.key === row.key),
      row,
    );
}

const SONNET = 'claude-sonnet-4-5-20250929';
const OPUS = 'claude-opus-4-6';
const UNPRICED = 'claude-experimental-9';

/** ccusage on the usage corpus, by time zone. */
const CORPUS_DAYS: Record<string, Expected[]> = {
  UTC: [
    {
      key: '2026-03-01',
      input: 4,
      output: 150,
      cacheCreation: 600,
      cacheRead: 9_000,
      costUsd: 0.008562,
      models: [SONNET],
    },
    {
      key: '2026-03-02',
      input: 107,
      output: 2_405,
      cacheCreation: 8_240,
      cacheRead: 130_700,
      costUsd: 0.140214,
      models: [UNPRICED, OPUS, SONNET],
    },
  ],
  'Asia/Kolkata': [
    {
      key: '2026-03-02',
      input: 56,
      output: 1_760,
      cacheCreation: 5_320,
      cacheRead: 82_600,
      costUsd: 0.093496,
      models: [OPUS, SONNET],
    },
    {
      key: '2026-03-03',
      input: 55,
      output: 795,
      cacheCreation: 3_520,
      cacheRead: 57_100,
      costUsd: 0.05528,
      models: [UNPRICED, OPUS],
    },
  ],
  'America/New_York': [
    {
      key: '2026-03-01',
      input: 33,
      output: 1_050,
      cacheCreation: 3_520,
      cacheRead: 54_100,
      costUsd: 0.053199,
      models: [SONNET],
    },
    {
      key: '2026-03-02',
      input: 78,
      output: 1_505,
      cacheCreation: 5_320,
      cacheRead: 85_600,
      costUsd: 0.095577,
      models: [UNPRICED, OPUS, SONNET],
    },
  ],
};
const CORPUS_TOTALS: Expected = {
  key: 'total',
  input: 111,
  output: 2_555,
  cacheCreation: 8_840,
  cacheRead: 139_700,
  costUsd: 0.148776,
};
/** The corpus's window, whatever today is. */
const CORPUS_WINDOW = { since: '2026-02-28', until: '2026-03-31' };

describe('usage.report over the recorded fixtures and the usage corpus', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir);
    writeUsageCorpus(sandbox.projectsDir);
    keepForFile(sandbox, await startDaemon(sandbox));
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return () => client.close();
  });

  it("equals ccusage's daily view of the recorded fixtures, day and models", async () => {
    const day = await client.usageReport({ since: '2026-12-02', until: '2026-12-02', timezone: 'UTC' });
    expect(day).toMatchObject({
      by: 'day',
      timezone: 'UTC',
      since: '2026-12-02T00:00:00.000Z',
      until: '2026-12-03T00:00:00.000Z',
      index: { state: 'ready' },
    });
    expectRows(day, [
      {
        key: '2026-12-02',
        input: 557_932,
        output: 10_932,
        cacheCreation: 212_635,
        cacheRead: 1_479_061,
        costUsd: 5.45087885,
        models: ['claude-haiku-4-5-20251001', 'claude-opus-4-8'],
      },
    ]);
    expect(day.totals.totalTokens).toBe(2_260_560);
    const models = await client.usageReport({ since: '2026-12-02', until: '2026-12-02', timezone: 'UTC', by: 'model' });
    expectRows(models, [
      {
        key: 'claude-opus-4-8',
        input: 557_922,
        output: 10_844,
        cacheCreation: 203_408,
        cacheRead: 1_469_885,
        costUsd: 5.4379775,
      },
      {
        key: 'claude-haiku-4-5-20251001',
        input: 10,
        output: 88,
        cacheCreation: 9_227,
        cacheRead: 9_176,
        costUsd: 0.01290135,
      },
    ]);
    expect(day.daily).toEqual([{ day: '2026-12-02', costUsd: day.totals.costUsd, totalTokens: 2_260_560 }]);
  });

  it('counts a response split across midnight once, on the day of its final entry, in each time zone', async () => {
    // The corpus holds what the test says: responses with entries on both sides of midnight UTC and IST.
    expect(straddles(mainPath(sandbox.projectsDir, NIGHT_CWD, NIGHT_SESSION), '2026-03-02T00:00:00.000Z')).toBe(true);
    expect(straddles(mainPath(sandbox.projectsDir, BILLING_CWD, BILLING_SESSION), '2026-03-02T18:30:00.000Z')).toBe(
      true,
    );
    for (const [timezone, expected] of Object.entries(CORPUS_DAYS)) {
      const report = await client.usageReport({ ...CORPUS_WINDOW, timezone });
      expectRows(report, expected);
      expectFigures(report.totals, CORPUS_TOTALS);
      expect(report.totals).toMatchObject({ responses: 10, unpricedResponses: 1 });
    }
  });

  it('groups by model and by project, costliest first, and filters by project folder or cwd', async () => {
    const models = await client.usageReport({ ...CORPUS_WINDOW, by: 'model' });
    expectRows(models, [
      { key: OPUS, input: 45, output: 975, cacheCreation: 3_120, cacheRead: 50_100, costUsd: 0.08085 },
      { key: SONNET, input: 42, output: 1_460, cacheCreation: 4_320, cacheRead: 66_600, costUsd: 0.067926 },
      { key: UNPRICED, input: 24, output: 120, cacheCreation: 1_400, cacheRead: 23_000, costUsd: 0 },
    ]);
    expect(models.rows.find((row) => row.key === UNPRICED)?.unpricedResponses).toBe(1);
    const projects = await client.usageReport({ ...CORPUS_WINDOW, by: 'project' });
    expect(projects.rows.map((row) => row.key)).toEqual(['-home-u-work-billing', '-home-u-src-nightly']);
    const billing = await client.usageReport({ ...CORPUS_WINDOW, project: BILLING_CWD });
    // ccusage's by-model figures of the two models only billing used.
    expectFigures(billing.totals, {
      key: 'billing',
      input: 69,
      output: 1_095,
      cacheCreation: 4_520,
      cacheRead: 73_100,
      costUsd: 0.08085,
    });
    expect((await client.usageReport({ ...CORPUS_WINDOW, project: '-home-u-work-billing' })).totals).toEqual(
      billing.totals,
    );
  });

  it('gives every day of the window for the sparkline, and refuses bad bounds and zones', async () => {
    const report = await client.usageReport({ since: '2026-02-28', until: '2026-03-04', timezone: 'UTC' });
    expect(report.daily.map((day) => day.day)).toEqual([
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
    ]);
    expect(report.daily.map((day) => day.costUsd > 0)).toEqual([false, true, true, false, false]);
    await expect(client.usageReport({ since: 'last tuesday' })).rejects.toMatchObject({
      code: -32602,
      data: { field: 'since' },
    });
    await expect(client.usageReport({ timezone: 'Mars/Olympus_Mons' })).rejects.toMatchObject({
      code: -32602,
      data: { field: 'timezone' },
    });
  });

  it('prints a table and a sparkline, --json as the result, and exits 2 or 1 on bad input', async () => {
    const window = ['--since', '2026-03-01', '--until', '2026-03-03', '--timezone', 'UTC'];
    const table = await runMemctl(sandbox, ['usage', ...window]);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('usage 2026-03-01 to 2026-03-03 (3 days), by day, days in UTC');
    expect(lines[1]).toMatch(/^DAY +INPUT +OUTPUT +CACHE WRITE +CACHE READ +TOTAL TOKENS +COST +MODELS$/);
    expect(lines[2]).toMatch(/^2026-03-01 +4 +150 +600 +9,000 +9,754 +\$0\.01 +sonnet-4-5$/);
    expect(lines[3]).toMatch(
      /^2026-03-02 +107 +2,405 +8,240 +130,700 +141,452 +\$0\.14\* +experimental-9, opus-4-6, sonnet-4-5$/,
    );
    expect(lines[4]).toMatch(/^total +111 +2,555 +8,840 +139,700 +151,206 +\$0\.15\*/);
    expect(table.stdout).toContain('* 1 responses of models memd has no price for');
    expect(table.stdout).toContain('cost per day  ▁█·\n');
    expect(table.stdout).toContain('highest $0.14 on 2026-03-02');

    const json = await runMemctl(sandbox, ['usage', ...window, '--by', 'model', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(
      await client.usageReport({ since: '2026-03-01', until: '2026-03-03', timezone: 'UTC', by: 'model' }),
    );

    const badSince = await runMemctl(sandbox, ['usage', '--since', 'yesterday']);
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain('--since takes a span back from now (30d, 2w, 12h, 90m)');
    const badBy = await runMemctl(sandbox, ['usage', '--by', 'hour']);
    expect(badBy.code).toBe(2);
    const badZone = await runMemctl(sandbox, ['usage', '--timezone', 'Mars/Olympus_Mons']);
    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toContain('memd answered InvalidParams (-32602): timezone must be an IANA time zone');
    const help = await runMemctl(sandbox, ['usage', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: memctl usage \[--since 30d\]/);
  });

  it('exits 2 when no daemon answers and autostart is off', async () => {
    const empty = makeSandbox();
    const result = await runMemctl(empty, ['--no-autostart', 'usage']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('memd is not running');
  });
});

describe('the usage book as transcripts change', () => {
  let sandbox: Sandbox;
  let client: Client;
  let daemon: DaemonProcess;
  const utc = { ...CORPUS_WINDOW, timezone: 'UTC' };

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeUsageCorpus(sandbox.projectsDir);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return () => client.close();
  });

  it('shows an appended response in the next report', async () => {
    const before = await client.usageReport(utc);
    const path = mainPath(sandbox.projectsDir, BILLING_CWD, BILLING_SESSION);
    const line = {
      parentUuid: null,
      isSidechain: false,
      type: 'assistant',
      uuid: 'live-usage-0001',
      timestamp: '2026-03-03T10:00:00.000Z',
      sessionId: BILLING_SESSION,
      requestId: 'req_live_usage_1',
      message: {
        id: 'msg_live_usage_1',
        role: 'assistant',
        model: OPUS,
        content: [{ type: 'text', text: 'done' }],
        usage: { input_tokens: 10, output_tokens: 1_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    };
    writeFileSync(path, `${readFileSync(path, 'utf8')}${JSON.stringify(line)}\n`);
    await eventually(
      async () => (await client.usageReport(utc)).totals.output === before.totals.output + 1_000,
      'the appended response to count',
    );
    // Take it back for the next test: the file as the corpus wrote it.
    writeFileSync(path, readFileSync(path, 'utf8').split('\n').slice(0, -2).join('\n').concat('\n'));
    await eventually(
      async () => (await client.usageReport(utc)).totals.output === before.totals.output,
      'the rewritten file to be counted again',
    );
  });

  it("counts a cut transcript's responses from the copies another session holds, then no more", async () => {
    const cut = (path: string) =>
      writeFileSync(path, `${readFileSync(path, 'utf8').split('\n').slice(0, 4).join('\n')}\n`);
    cut(mainPath(sandbox.projectsDir, NIGHT_CWD, NIGHT_SESSION));
    await eventually(
      async () => (await client.sessionsGet({ sessionId: NIGHT_SESSION })).usage.total.assistantMessages < 5,
      'the cut transcript to be read again',
    );
    // The resumed session's file repeats every response the cut removed: ccusage's figures do not move.
    expectRows(await client.usageReport(utc), CORPUS_DAYS.UTC as Expected[]);
    cut(mainPath(sandbox.projectsDir, NIGHT_CWD, RESUMED_SESSION));
    await eventually(async () => (await client.usageReport(utc)).totals.output === 1_335, 'the second cut to count');
    const report = await client.usageReport(utc);
    expectRows(report, [
      { key: '2026-03-01', input: 4, output: 150, cacheCreation: 600, cacheRead: 9_000, costUsd: 0.008562 },
      { key: '2026-03-02', input: 80, output: 1_185, cacheCreation: 5_400, cacheRead: 87_000, costUsd: 0.091683 },
    ]);
    expectFigures(report.totals, {
      key: 'total',
      input: 84,
      output: 1_335,
      cacheCreation: 6_000,
      cacheRead: 96_000,
      costUsd: 0.100245,
    });
  });

  it('counts the transcripts of a database from before the book in the background, to the same figures', async () => {
    const before = await client.usageReport({ ...utc, by: 'model' });
    await client.daemonShutdown({ reason: 'test: an older database' });
    await daemon.exited;
    const db = new Database(sandbox.dbPath);
    db.exec(`DELETE FROM usage_files; DELETE FROM usage_candidates; DELETE FROM usage_slots`);
    db.close();
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    await eventually(() => caughtUp(client), 'the book to be counted again');
    expect(await client.usageReport({ ...utc, by: 'model' })).toEqual(before);
  });
});

describe('memctl usage without arguments', () => {
  it('reports the last 30 days of the daemon it finds', async () => {
    const sandbox = makeSandbox();
    keepForFile(sandbox, await startDaemon(sandbox));
    const result = await runMemctl(sandbox, ['usage']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(30 days\), by day, days in /);
    expect(result.stdout).toContain('no API responses in this window');
  });
});
