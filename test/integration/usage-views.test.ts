/**
 * usage.report by week, month and 5-hour billing block over a real daemon, against ccusage
 * 20.0.24 run in the test on the same files (`weekly`, `monthly`, `blocks`, each `--json
 * --offline`): the recorded fixtures, the usage corpus (test/helpers/usage-corpus.ts: split
 * responses, a resumed session's copies, a sub-agent replay, an unpriced model, midnight in UTC and
 * in India), and sessions of bursts timed from now, so that the last block is active and has a
 * burn rate and a projection. ccusage and memd read the clock a few seconds apart: the active
 * block's projection is compared to what that difference can move.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { UsageReportResult, UsageRow } from '../../shared/protocol/usage.js';
import { createClient } from '../helpers/client.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { writeNestedUsage } from '../helpers/nested-usage.js';
import { mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import {
  eventually,
  keepForFile,
  makeSandbox,
  ROOT,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';
import { writeUsageCorpus } from '../helpers/usage-corpus.js';

const CCUSAGE = join(ROOT, 'node_modules/ccusage/src/cli.js');
/** ccusage adds per-response costs, memd prices summed tokens: equal to float rounding. */
const COST_DIGITS = 6;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const PACE_CWD = '/home/u/src/pace';
/** The bursts of the paced sessions, back from now: a block, one cut five hours after its start, a gap, the active block. */
const BURSTS = [
  20 * HOUR + 17 * MINUTE,
  19 * HOUR,
  14 * HOUR + 30 * MINUTE,
  3 * HOUR + 5 * MINUTE,
  2 * HOUR,
  40 * MINUTE,
];

interface CcusageTokens {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalCost: number;
  modelsUsed: string[];
  period: string;
}

interface CcusageBlock {
  id: string;
  startTime: string;
  endTime: string;
  actualEndTime: string | null;
  isActive: boolean;
  isGap: boolean;
  entries: number;
  costUSD: number;
  models: string[];
  totalTokens: number;
  tokenCounts: {
    inputTokens: number;
    outputTokens: number;
    cacheCreationInputTokens: number;
    cacheReadInputTokens: number;
  };
  burnRate: { tokensPerMinute: number; tokensPerMinuteForIndicator: number; costPerHour: number } | null;
  projection: { totalTokens: number; totalCost: number; remainingMinutes: number } | null;
}

function ccusage(sandbox: Sandbox, args: readonly string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CCUSAGE, ...args, '--json', '--offline'],
      { env: { ...process.env, HOME: sandbox.env.HOME, CLAUDE_CONFIG_DIR: sandbox.root }, timeout: 60_000 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    );
  });
}

/** Sessions of a few responses at each burst, each its own file (as a user's separate sessions are). */
function writePacedSessions(projectsDir: string, now: number): void {
  BURSTS.forEach((back, at) => {
    const sessionId = `5a0000${at}0-4444-4e5f-8a9b-0c1d2e3f4a5b`;
    const writer = new TranscriptWriter({ sessionId, cwd: PACE_CWD, version: '2.1.197', startMs: now - back });
    writer.prompt(`Step ${at} of the release`);
    for (let round = 0; round < 2; round++)
      writer.toolRound('Bash', { command: `make step-${at}-${round}` }, 'ok', {
        input: 6 + at,
        cacheWrite: 900 + 50 * round,
        cacheRead: 20_000 * (at + 1),
        output: 200 + 30 * at,
      });
    writeTranscript(mainPath(projectsDir, PACE_CWD, sessionId), writer);
  });
}

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  if (ingest.progress.state !== 'live' || ingest.progress.filesPending !== 0 || ingest.stats.files === 0) return false;
  return (await client.usageReport({})).index.state === 'ready';
}

function expectPeriods(report: UsageReportResult, theirs: readonly CcusageTokens[]): void {
  expect(theirs.length).toBeGreaterThan(1);
  expect(report.rows.map((row) => row.key)).toEqual(theirs.map((row) => row.period));
  for (const row of theirs) {
    const ours = report.rows.find((candidate) => candidate.key === row.period) as UsageRow;
    expect(
      { input: ours.input, output: ours.output, cacheCreation: ours.cacheCreation, cacheRead: ours.cacheRead },
      row.period,
    ).toEqual({
      input: row.inputTokens,
      output: row.outputTokens,
      cacheCreation: row.cacheCreationTokens,
      cacheRead: row.cacheReadTokens,
    });
    expect(ours.costUsd, row.period).toBeCloseTo(row.totalCost, COST_DIGITS);
    expect(ours.models, row.period).toEqual([...row.modelsUsed].filter((model) => model !== '').sort());
  }
}

describe('usage.report by week, month and block, equal to ccusage', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir);
    writeUsageCorpus(sandbox.projectsDir);
    writePacedSessions(sandbox.projectsDir, Date.now());
    keepForFile(sandbox, await startDaemon(sandbox));
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'the usage book to catch up');
  });

  for (const timezone of ['UTC', 'Asia/Kolkata'])
    for (const by of ['week', 'month'] as const)
      it(`equals ccusage's ${by}ly view in ${timezone}`, async () => {
        const view = by === 'week' ? 'weekly' : 'monthly';
        const theirs = (await ccusage(sandbox, [view, '--timezone', timezone])) as Record<string, CcusageTokens[]>;
        const ours = await client.usageReport({ by, timezone });
        expectPeriods(ours, theirs[view] ?? []);
        expect(ours.provenance).toEqual({
          tokens: 'official',
          costUsd: 'estimated',
          burnRate: 'estimated',
          projection: 'estimated',
        });
      });

  it("equals ccusage's blocks, gaps included, with the active block's burn rate and projection", async () => {
    const ours = await client.usageReport({ by: 'block' });
    const before = Date.now();
    const { blocks } = (await ccusage(sandbox, ['blocks'])) as { blocks: CcusageBlock[] };
    const seconds = (Date.now() - before) / 1_000;
    expect(blocks.some((block) => block.isGap)).toBe(true);
    expect(ours.rows.map((row) => row.key)).toEqual(blocks.map((block) => block.id));
    for (const block of blocks) {
      const row = ours.rows.find((candidate) => candidate.key === block.id) as UsageRow;
      const info = row.block;
      expect(
        {
          start: info?.start,
          end: info?.end,
          lastResponse: info?.lastResponse,
          gap: info?.gap,
          active: info?.active,
          responses: row.responses,
          input: row.input,
          output: row.output,
          cacheCreation: row.cacheCreation,
          cacheRead: row.cacheRead,
          totalTokens: row.totalTokens,
          models: row.models,
        },
        block.id,
      ).toEqual({
        start: block.startTime,
        end: block.endTime,
        lastResponse: block.actualEndTime,
        gap: block.isGap,
        active: block.isActive,
        responses: block.entries,
        input: block.tokenCounts.inputTokens,
        output: block.tokenCounts.outputTokens,
        cacheCreation: block.tokenCounts.cacheCreationInputTokens,
        cacheRead: block.tokenCounts.cacheReadInputTokens,
        totalTokens: block.totalTokens,
        models: [...block.models].filter((model) => model !== '').sort(),
      });
      expect(row.costUsd, block.id).toBeCloseTo(block.costUSD, COST_DIGITS);
      if (block.burnRate === null) expect(info?.burnRate, block.id).toBeNull();
      else {
        expect(info?.burnRate?.tokensPerMinute).toBeCloseTo(block.burnRate.tokensPerMinute, 6);
        expect(info?.burnRate?.tokensPerMinuteForIndicator).toBeCloseTo(block.burnRate.tokensPerMinuteForIndicator, 6);
        expect(info?.burnRate?.costPerHour).toBeCloseTo(block.burnRate.costPerHour, 6);
      }
      if (block.projection === null) expect(info?.projection, block.id).toBeNull();
      else {
        const projection = info?.projection;
        // memd asked first: its now is earlier by at most the seconds ccusage took, and it projects that much more.
        const minutes = seconds / 60 + 1;
        expect(Math.abs((projection?.remainingMinutes ?? 0) - block.projection.remainingMinutes)).toBeLessThanOrEqual(
          minutes,
        );
        const slack = (block.burnRate?.tokensPerMinute ?? 0) * minutes;
        expect(Math.abs((projection?.totalTokens ?? 0) - block.projection.totalTokens)).toBeLessThanOrEqual(slack);
        const costSlack = ((block.burnRate?.costPerHour ?? 0) / 60) * minutes + 0.01;
        expect(Math.abs((projection?.totalCost ?? 0) - block.projection.totalCost)).toBeLessThanOrEqual(costSlack);
      }
    }
    expect(blocks.filter((block) => block.isActive)).toHaveLength(1);
  });

  it('prints blocks in memctl usage --by block, the active one with its pace', async () => {
    const table = await runMemctl(sandbox, ['usage', '--by', 'block', '--since', '2d']);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[1]).toMatch(/^BLOCK \(UTC\) +INPUT +OUTPUT/);
    expect(lines.some((line) => / gap +0 +0 +0 +0 +0 +\$0\.00/.test(line))).toBe(true);
    expect(lines.some((line) => / active +[\d,]+ /.test(line))).toBe(true);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}burn rate [\d,]+ tokens\/min, \$\d+\.\d\d\/h \(estimated\)$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}projected at its end: [\d,]+ tokens, \$\d+\.\d\d, \d+ min left \(estimated\)$/),
    );
    const json = await runMemctl(sandbox, ['usage', '--by', 'month', '--json']);
    expect((JSON.parse(json.stdout) as UsageReportResult).provenance.tokens).toBe('official');
  });
});

describe('usage.report by block with sub-agent responses nested in main transcripts', () => {
  it("counts them as ccusage's daily view does, where ccusage's blocks view leaves them out", async () => {
    const sandbox = makeSandbox();
    writeNestedUsage(sandbox.projectsDir);
    keepForFile(sandbox, await startDaemon(sandbox));
    const client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'the usage book to catch up');
    const ours = await client.usageReport({ by: 'block' });
    const { blocks } = (await ccusage(sandbox, ['blocks'])) as { blocks: CcusageBlock[] };
    const { daily } = (await ccusage(sandbox, ['daily', '--timezone', 'UTC'])) as { daily: { totalTokens: number }[] };
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    // The same blocks start at the same hours; memd's hold the nested responses too, so they add up to the daily view.
    expect(ours.rows.filter((row) => row.block?.gap === false).map((row) => row.key)).toEqual(
      blocks.filter((block) => !block.isGap).map((block) => block.id),
    );
    expect(sum(ours.rows.map((row) => row.totalTokens))).toBe(sum(daily.map((day) => day.totalTokens)));
    expect(sum(blocks.map((block) => block.totalTokens))).toBeLessThan(sum(daily.map((day) => day.totalTokens)));
  });
});

/** One response a line, as Claude Code writes them (compact JSON: ccusage reads no other). */
function writeTimedResponses(projectsDir: string, sessionId: string, times: readonly string[]): void {
  const lines = times.map((timestamp, at) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: 'assistant',
      timestamp,
      sessionId,
      uuid: `0b000000-0000-4000-8000-${String(at).padStart(12, '0')}`,
      requestId: `req_bounds${at}`,
      cwd: '/home/u/src/bounds',
      version: '2.1.197',
      message: {
        id: `msg_bounds${at}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'ok' }],
        usage: {
          input_tokens: 100 * (at + 1),
          output_tokens: 10,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    }),
  );
  const dir = join(projectsDir, '-home-u-src-bounds');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
}

describe('usage.report by block with the window bounded inside blocks', () => {
  // A block from 21:00 that runs past midnight, then one that starts at 02:00 only because of it (from
  // midnight alone it would start at 01:00), a gap, and a block on the next day.
  const TIMES = [
    '2026-12-03T21:30:00.000Z',
    '2026-12-04T01:40:00.000Z',
    '2026-12-04T02:10:00.000Z',
    '2026-12-04T03:00:00.000Z',
    '2026-12-04T12:00:00.000Z',
    '2026-12-05T01:00:00.000Z',
  ];
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTimedResponses(sandbox.projectsDir, '0b0c0d0e-4444-4e5f-8a9b-0c1d2e3f4a5b', TIMES);
    keepForFile(sandbox, await startDaemon(sandbox));
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'the usage book to catch up');
  });

  const cases: [string, { since?: string; until?: string }, string[]][] = [
    ['UTC', { since: '2026-12-04' }, ['--since', '20261204']],
    ['UTC', { until: '2026-12-04' }, ['--until', '20261204']],
    ['UTC', { since: '2026-12-04', until: '2026-12-04' }, ['--since', '20261204', '--until', '20261204']],
    ['Asia/Kolkata', { since: '2026-12-04' }, ['--since', '20261204']],
  ];
  for (const [timezone, window, theirArgs] of cases)
    it(`keeps whole blocks by their start as ccusage's blocks ${theirArgs.join(' ')} does in ${timezone}`, async () => {
      const ours = await client.usageReport({ by: 'block', timezone, ...window });
      const { blocks } = (await ccusage(sandbox, ['blocks', ...theirArgs, '--timezone', timezone])) as {
        blocks: CcusageBlock[];
      };
      expect(blocks.length).toBeGreaterThan(0);
      expect(ours.rows.map((row) => [row.key, row.responses, row.totalTokens])).toEqual(
        blocks.map((block) => [block.id, block.entries, block.totalTokens]),
      );
      // The totals are the blocks' own, whole ones that run past the window's end included.
      const sum = blocks.reduce((total, block) => total + block.totalTokens, 0);
      expect(ours.totals.totalTokens).toBe(sum);
    });
});
