/**
 * Sub-agent spend that sits only inside the main transcript (issue 28 item 4): Claude Code
 * 2.1.3x-2.1.4x nests each sub-agent response in `agent_progress` entries of the main transcript,
 * split over several entries with the same message id and requestId. The expected figures are
 * ccusage 20.0.24's on the nested-usage fixtures (test/helpers/nested-usage.ts):
 * `ccusage daily --json --offline --timezone TZ [--breakdown]` over all of them, `ccusage session
 * --json --offline`, and `ccusage daily` over each session's files alone. ccusage's session view
 * leaves nested responses out (its daily view counts them): memd counts them in a session's cost
 * too, so a session's figures are ccusage's daily ones over its files (docs/protocol.md).
 */
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { UsageFigures, UsageReportResult } from '../../shared/protocol/usage.js';
import { createClient } from '../helpers/client.js';
import {
  BOTH_SESSION,
  NESTED_SESSIONS,
  ONLY_PROGRESS_SESSION,
  PARTIAL_SESSION,
  writeNestedUsage,
} from '../helpers/nested-usage.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

/** ccusage adds per-response costs, memd prices summed tokens: equal to the millionth of a dollar. */
const COST_DIGITS = 6;
const SONNET = 'claude-sonnet-4-5-20250929';
const HAIKU = 'claude-haiku-4-5-20251001';
const WINDOW = { since: '2026-03-30', until: '2026-04-05' };

interface Expected {
  key: string;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  costUsd: number;
  models?: string[];
}

/** ccusage daily, by time zone: the second sub-agent response of two sessions ends at 23:59:59 UTC, its progress entry after midnight. */
const DAYS: Record<string, Expected[]> = {
  UTC: [
    {
      key: '2026-04-01',
      input: 28,
      output: 651,
      cacheCreation: 4_240,
      cacheRead: 64_800,
      costUsd: 0.037217,
      models: [HAIKU, SONNET],
    },
    {
      key: '2026-04-02',
      input: 51,
      output: 942,
      cacheCreation: 6_740,
      cacheRead: 101_800,
      costUsd: 0.052451,
      models: [HAIKU, SONNET],
    },
    {
      key: '2026-04-03',
      input: 114,
      output: 1_881,
      cacheCreation: 13_700,
      cacheRead: 205_000,
      costUsd: 0.086505,
      models: [HAIKU, SONNET],
    },
  ],
  'Asia/Kolkata': [
    {
      key: '2026-04-02',
      input: 35,
      output: 926,
      cacheCreation: 5_300,
      cacheRead: 81_000,
      costUsd: 0.042339,
      models: [HAIKU, SONNET],
    },
    {
      key: '2026-04-03',
      input: 158,
      output: 2_548,
      cacheCreation: 19_380,
      cacheRead: 290_600,
      costUsd: 0.133834,
      models: [HAIKU, SONNET],
    },
  ],
};
const TOTALS: Expected = {
  key: 'total',
  input: 193,
  output: 3_474,
  cacheCreation: 24_680,
  cacheRead: 371_600,
  costUsd: 0.176173,
};
/** ccusage daily --breakdown, UTC: the sub-agents' model by day. */
const HAIKU_DAYS: Expected[] = [
  { key: '2026-04-01', input: 11, output: 439, cacheCreation: 1_850, cacheRead: 28_500, costUsd: 0.008756 },
  { key: '2026-04-02', input: 26, output: 722, cacheCreation: 3_630, cacheRead: 55_100, costUsd: 0.016406 },
  { key: '2026-04-03', input: 81, output: 1_653, cacheCreation: 9_870, cacheRead: 147_900, costUsd: 0.042876 },
];
/** memd's session figures: ccusage daily over each session's files alone. */
const SESSIONS: Record<string, Expected & { subagentResponses: number; subagentOutput: number }> = {
  [ONLY_PROGRESS_SESSION]: {
    key: 'only',
    input: 35,
    output: 926,
    cacheCreation: 5_300,
    cacheRead: 81_000,
    costUsd: 0.042339,
    subagentResponses: 3,
    subagentOutput: 714,
  },
  [BOTH_SESSION]: {
    key: 'both',
    input: 67,
    output: 1_262,
    cacheCreation: 8_610,
    cacheRead: 129_700,
    costUsd: 0.060597,
    subagentResponses: 4,
    subagentOutput: 1_042,
  },
  [PARTIAL_SESSION]: {
    key: 'partial',
    input: 91,
    output: 1_286,
    cacheCreation: 10_770,
    cacheRead: 160_900,
    costUsd: 0.073237,
    subagentResponses: 4,
    subagentOutput: 1_058,
  },
};
/** ccusage session: equal to memd's where the sub-agent's file holds every nested response, lower where it does not. */
const CCUSAGE_SESSIONS: Record<string, Expected> = {
  [ONLY_PROGRESS_SESSION]: {
    key: 'only',
    input: 17,
    output: 212,
    cacheCreation: 2_390,
    cacheRead: 36_300,
    costUsd: 0.028461,
  },
  [BOTH_SESSION]: {
    key: 'both',
    input: 67,
    output: 1_262,
    cacheCreation: 8_610,
    cacheRead: 129_700,
    costUsd: 0.060597,
  },
  [PARTIAL_SESSION]: {
    key: 'partial',
    input: 60,
    output: 683,
    cacheCreation: 7_120,
    cacheRead: 106_400,
    costUsd: 0.057441,
  },
};

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  if (ingest.progress.state !== 'live' || ingest.progress.filesPending !== 0 || ingest.stats.files === 0) return false;
  return (await client.usageReport({})).index.state === 'ready';
}

/** The figures a usage.report row and a session's usage share. */
type Figures = Pick<UsageFigures, 'input' | 'output' | 'cacheCreation' | 'cacheRead'> & {
  costUsd: number | null;
  models?: string[];
};

function expectFigures(actual: Figures | undefined, expected: Expected): void {
  expect(actual, expected.key).toBeDefined();
  const { input, output, cacheCreation, cacheRead } = actual as Figures;
  expect({ input, output, cacheCreation, cacheRead }, expected.key).toEqual({
    input: expected.input,
    output: expected.output,
    cacheCreation: expected.cacheCreation,
    cacheRead: expected.cacheRead,
  });
  expect(actual?.costUsd, expected.key).toBeCloseTo(expected.costUsd, COST_DIGITS);
  if (expected.models) expect(actual?.models, expected.key).toEqual(expected.models);
}

function expectRows(report: UsageReportResult, expected: readonly Expected[]): void {
  expect(report.rows.map((row) => row.key)).toEqual(expected.map((row) => row.key));
  for (const row of expected)
    expectFigures(
      report.rows.find((candidate) => candidate.key === row.key),
      row,
    );
}

/** Every figure: usage.report by day (two zones) and by model for one day, and each session's cost. */
async function expectNestedCounted(client: Client): Promise<void> {
  for (const [timezone, expected] of Object.entries(DAYS)) {
    const report = await client.usageReport({ ...WINDOW, timezone });
    expectRows(report, expected);
    expectFigures(report.totals, TOTALS);
    // 3 sessions × 2 main-thread responses, 3 + 4 + 4 sub-agent responses, each once.
    expect(report.totals.responses, timezone).toBe(17);
  }
  for (const day of HAIKU_DAYS) {
    const report = await client.usageReport({ since: day.key, until: day.key, timezone: 'UTC', by: 'model' });
    expectFigures(
      report.rows.find((row) => row.key === HAIKU),
      day,
    );
  }
  const { sessions } = await client.sessionsList({ all: true });
  for (const id of NESTED_SESSIONS) {
    const session = sessions.find((candidate) => candidate.sessionId === id);
    const expected = SESSIONS[id] as (typeof SESSIONS)[string];
    expectFigures(session?.usage.total, expected);
    expect(session?.usage.sidechain, expected.key).toMatchObject({
      assistantMessages: expected.subagentResponses,
      output: expected.subagentOutput,
    });
    expect(session?.usage.main.assistantMessages, expected.key).toBe(2);
    // Nested responses are a sub-agent's, never the main thread's context.
    expect(session?.model, expected.key).toBe(SONNET);
  }
}

describe('sub-agent responses nested in the main transcript', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeNestedUsage(sandbox.projectsDir);
    keepForFile(sandbox, await startDaemon(sandbox));
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return () => client.close();
  });

  it("equals ccusage's daily view, counting each nested response once, with or without the sub-agent's file", async () => {
    await expectNestedCounted(client);
  });

  it("equals ccusage's session view where the sub-agent's file holds every response, and counts the nested rest", async () => {
    const { sessions } = await client.sessionsList({ all: true });
    const both = sessions.find((session) => session.sessionId === BOTH_SESSION);
    expectFigures(both?.usage.total, CCUSAGE_SESSIONS[BOTH_SESSION] as Expected);
    for (const id of [ONLY_PROGRESS_SESSION, PARTIAL_SESSION]) {
      const ours = sessions.find((session) => session.sessionId === id)?.usage.total;
      const theirs = CCUSAGE_SESSIONS[id] as Expected;
      expect(ours?.output, theirs.key).toBeGreaterThan(theirs.output);
    }
  });

  it('memctl usage prints the same totals', async () => {
    const result = await runMemctl(sandbox, [
      'usage',
      '--since',
      '2026-04-01',
      '--until',
      '2026-04-03',
      '--timezone',
      'UTC',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^total +193 +3,474 +24,680 +371,600 +399,947 +\$0\.18/m);
  });
});

/**
 * Rewrites a database as memd before issue 28 left it: schema 17, the progress entries' rows
 * without ids, model or usage, no session aggregates and no usage book (both counted again from
 * the rows at start, so without the migration they would stay low).
 */
function asWrittenBeforeTheFix(dbPath: string): void {
  const db = new Database(dbPath);
  try {
    db.transaction(() => {
      db.exec(`UPDATE entries SET message_id = NULL, request_id = NULL, model = NULL, model_id = NULL, usage_input = NULL, usage_output = NULL,
                 usage_cache_creation = NULL, usage_cache_read = NULL, usage_cache_5m = NULL, usage_cache_1h = NULL WHERE type = 'progress'`);
      for (const table of ['session_aggregates', 'session_responses', 'usage_candidates', 'usage_slots', 'usage_files'])
        db.exec(`DELETE FROM ${table}`);
      db.pragma('user_version = 17');
    })();
  } finally {
    db.close();
  }
}

describe('an index written before nested responses were counted', () => {
  it('reads the main transcripts with progress entries again, and counts them', async () => {
    const sandbox = makeSandbox();
    writeNestedUsage(sandbox.projectsDir);
    let daemon: DaemonProcess = await startDaemon(sandbox);
    let client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'the first ingest');
    await client.daemonShutdown({ reason: 'test: an older database' });
    await daemon.exited;
    client.close();
    asWrittenBeforeTheFix(sandbox.dbPath);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () =>
          (await caughtUp(client)) &&
          (await client.usageReport({ ...WINDOW, timezone: 'UTC' })).totals.responses === 17,
        'the nested responses to be counted',
      );
      await expectNestedCounted(client);
    } finally {
      client.close();
    }
  });
});
