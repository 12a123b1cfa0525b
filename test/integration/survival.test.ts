/**
 * The survival score of memd's own compactions (issue 32, item 2), over a real daemon: every
 * `compact.*` result says which of the session's facts (files changed, errors, rules, todos,
 * decisions) the messages it returns still carry, and `memctl compact` prints it; and of Claude
 * Code's own (a `compact_boundary` and its summary in the transcript): recorded per boundary,
 * shown by `memctl status SESSION`. The transcript is written here in Claude Code's shapes.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { factsFromSummary } from '../../client/memctl/quick/statusline.js';
import { compactionResultSchema, type Survival } from '../../shared/protocol/compaction.js';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium, openOffline } from '../helpers/chromium.mjs';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { mainPath, type ResponseUsage, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/shop';
const SESSION = '32a0b1c2-0000-4000-8000-000000000001';
const usage = (n: number): ResponseUsage => ({ input: 3, cacheWrite: 2_000 + n * 900, cacheRead: 20_000, output: 150 });

/** A session with two files changed, a failed test run, a rule, a pending todo and a decision. */
function session(): TranscriptWriter {
  const main = new TranscriptWriter({ sessionId: SESSION, cwd: CWD, version: '2.1.197', model: 'claude-opus-4-8' });
  main.prompt('Fix the rounding in src/cart.ts. Never touch package.json.');
  main.toolRound(
    'Read',
    { file_path: `${CWD}/src/cart.ts` },
    'export const total = (xs) => xs.reduce(...)\n'.repeat(80),
    usage(1),
  );
  main.response([{ type: 'text', text: 'We will use integer cents instead of floats.' }], usage(2));
  main.toolRound(
    'Edit',
    { file_path: `${CWD}/src/cart.ts`, old_string: 'xs.reduce', new_string: 'cents(xs)' },
    'The file has been updated.',
    usage(3),
  );
  const failed = 'toolu_32failedrun000000000001';
  main.response([{ type: 'tool_use', id: failed, name: 'Bash', input: { command: 'npm test' } }], usage(4));
  main.toolResult(
    failed,
    `Exit code 1\n${'  at cart.test.ts:12\n'.repeat(60)}AssertionError: expected 30 to equal 31`,
    true,
  );
  main.toolRound(
    'TodoWrite',
    { todos: [{ content: 'Cover discounts in cart tests', status: 'pending', activeForm: 'Covering discounts' }] },
    'Todos have been modified successfully.',
    usage(5),
  );
  main.toolRound('Bash', { command: 'npm run lint' }, 'lint ok\n'.repeat(200), usage(6));
  main.response([{ type: 'text', text: 'The total is now computed in cents.' }], usage(7));
  return main;
}

/** The context chart's compaction marks in headless Chromium, offline: labels, titles, whether they show. */
async function compactionMarkInChromium(path: string) {
  const browser = await launchChromium();
  try {
    const { context, page, seen } = await openOffline(browser, pathToFileURL(path).href);
    try {
      const chart = page.locator('svg#context-chart');
      const label = chart.locator('text.compaction-label');
      const [chartBox, labelBox] = [await chart.boundingBox(), await label.first().boundingBox()];
      const insideChart =
        chartBox !== null &&
        labelBox !== null &&
        labelBox.x >= chartBox.x &&
        labelBox.y >= chartBox.y &&
        labelBox.x + labelBox.width <= chartBox.x + chartBox.width &&
        labelBox.y + labelBox.height <= chartBox.y + chartBox.height;
      return {
        labels: await label.allTextContents(),
        visible: await label.first().isVisible(),
        insideChart,
        titles: await chart.locator('line.compaction > title, rect.compaction-band > title').allTextContents(),
        errors: [...seen.consoleErrors, ...seen.pageErrors, ...seen.blocked],
      };
    } finally {
      await context.close();
    }
  } finally {
    await browser.close();
  }
}

describe('the survival score of memd compactions', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION), session());
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files >= 1;
    }, 'ingest to catch up');
  });

  it('every method says which facts survived; micro keeps them all', async () => {
    const answer = await client.compactMicro({ sessionId: SESSION });
    compactionResultSchema.parse(answer, 'result');
    const micro = answer as typeof answer & { survival: Survival };
    expect(micro.survival).toMatchObject({ lost: 0 });
    expect(new Set(micro.survival.items.map((item) => item.kind))).toEqual(
      new Set(['file', 'error', 'rule', 'todo', 'decision']),
    );
    expect(micro.survival.items).toContainEqual({ kind: 'rule', text: 'Never touch package.json.', kept: true });
    expect(micro.survival.items).toContainEqual({ kind: 'file', text: 'src/cart.ts (modified)', kept: true });
    const reactive = (await client.compactReactive({ sessionId: SESSION })) as typeof answer & { survival: Survival };
    expect(reactive.survival.kept + reactive.survival.lost).toBe(micro.survival.kept);
  });

  it('memctl compact prints the score, and --json carries the items', async () => {
    const run = await runMemctl(sandbox, ['compact', SESSION, '--method', 'micro']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/survival \d+\/\d+ facts kept/);
    const json = await runMemctl(sandbox, ['compact', SESSION, '--method', 'micro', '--json']);
    expect(JSON.parse(json.stdout).survival.items.length).toBeGreaterThan(0);
  });
});

describe("the survival score of Claude Code's compactions", () => {
  it('is recorded for a boundary in the transcript and shown by memctl status, the lost facts named', async () => {
    const sandbox = makeSandbox();
    const path = mainPath(sandbox.projectsDir, CWD, SESSION);
    writeTranscript(path, session());
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the session to be indexed');
      const now = new Date().toISOString();
      const boundary = '32a0b1c2-0000-4000-8000-0000000000b1';
      const summary =
        'Summary: fixed the rounding in src/cart.ts (now integer cents). User rule: "Never touch package.json."';
      const lines = [
        {
          parentUuid: null,
          logicalParentUuid: null,
          isSidechain: false,
          type: 'system',
          subtype: 'compact_boundary',
          content: 'Conversation compacted',
          isMeta: false,
          timestamp: now,
          uuid: boundary,
          sessionId: SESSION,
          compactMetadata: { trigger: 'auto', preTokens: 30_000 },
        },
        {
          parentUuid: boundary,
          isSidechain: false,
          type: 'user',
          isCompactSummary: true,
          message: { role: 'user', content: summary },
          uuid: '32a0b1c2-0000-4000-8000-0000000000b2',
          timestamp: now,
          sessionId: SESSION,
        },
      ];
      appendFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
      await eventually(
        async () => (await client.handoffStatus({ sessionId: SESSION })).compactions.length === 1,
        'the compaction to be recorded from the transcript',
      );
      const [record] = (await client.handoffStatus({ sessionId: SESSION })).compactions;
      expect(record?.survival?.items).toContainEqual({ kind: 'file', text: 'src/cart.ts (modified)', kept: true });
      expect(record?.survival?.items).toContainEqual({ kind: 'rule', text: 'Never touch package.json.', kept: true });
      expect(record?.survival?.items).toContainEqual({
        kind: 'todo',
        text: 'Cover discounts in cart tests',
        kept: false,
      });
      const { kept, lost } = record?.survival ?? { kept: 0, lost: 0 };
      expect(lost).toBeGreaterThan(0);
      const status = await runMemctl(sandbox, ['status', SESSION]);
      expect(status.stdout).toContain(`survival  ${kept}/${kept + lost} facts kept by the summary`);
      expect(status.stdout).toContain('lost todo: Cover discounts in cart tests');
      // sessions.get carries the score for the status line, which shows it.
      const got = await client.sessionsGet({ sessionId: SESSION });
      expect(got.lastCompaction).toMatchObject({ kept, lost });
      expect(factsFromSummary(got, null)?.lastKept).toEqual({ kept, total: kept + lost });
      // The HTML report's context chart marks the compaction with its score.
      const out = join(sandbox.root, 'report.html');
      const exported = await runMemctl(sandbox, ['export', SESSION, '--format', 'html', '--out', out]);
      expect(exported, exported.stderr).toMatchObject({ code: 0 });
      expect(readFileSync(out, 'utf8')).toContain(`its summary kept ${kept}/${kept + lost} facts`);
      if (chromiumAvailable()) {
        // As a browser draws it: the label beside the mark, inside the chart, its title on the mark.
        const mark = await compactionMarkInChromium(out);
        expect(mark.labels).toEqual([`auto ${kept}/${kept + lost}`]);
        expect(mark.visible).toBe(true);
        expect(mark.insideChart).toBe(true);
        expect(mark.titles).toEqual([expect.stringContaining(`its summary kept ${kept}/${kept + lost} facts`)]);
        expect(mark.errors).toEqual([]);
      } else
        process.stderr.write(
          `survival.test.ts: the report's mark unchecked in a browser, no Chromium at ${CHROMIUM_PATH}\n`,
        );
      // SessionStart(compact) re-injects what the summary lost; another source does not.
      const start = await client.handoffSessionStart({ sessionId: SESSION, cwd: CWD, source: 'compact' });
      expect(start.additionalContext).toContain('## Facts the compaction summary lost');
      expect(start.additionalContext).toContain('- Still to do: Cover discounts in cart tests');
      expect(start.additionalContext).not.toContain('File changed: src/cart.ts');
      expect(start.additionalContext?.length).toBeLessThanOrEqual(10_000);
      const resume = await client.handoffSessionStart({ sessionId: SESSION, cwd: CWD, source: 'resume' });
      expect(resume.additionalContext ?? '').not.toContain('Facts the compaction summary lost');
    } finally {
      client.close();
    }
  });
});

describe("the survival score of Claude Code's compactions made before memd ran", () => {
  /** A daemon started over the recorded compactions session (compacted twice, two days before), indexed. */
  async function compactedBefore(): Promise<{ sandbox: Sandbox; sessionId: string; client: Client }> {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['compactions']);
    const { sessionId } = manifest('compactions');
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the session to be indexed');
    return { sandbox, sessionId, client };
  }

  it('each boundary is scored when the session is asked about: handoff.status, memctl status, the status line', async () => {
    const { sandbox, sessionId, client } = await compactedBefore();
    try {
      // Recorded two days ago, the boundaries are history to the live watch: nothing is recorded yet.
      const { compactions } = await client.handoffStatus({ sessionId });
      expect(compactions.map((record) => record.trigger)).toEqual(['auto', 'manual']);
      const [auto, manual] = compactions;
      // The first summary names the files it changed; each score is of the conversation before its boundary.
      expect(manual?.survival?.items).toContainEqual({
        kind: 'file',
        text: 'payments/store.py (modified)',
        kept: true,
      });
      expect(auto?.survival?.kept).toBeGreaterThan(0);
      const status = await runMemctl(sandbox, ['status', sessionId]);
      expect(status.stdout).toContain(
        `survival  ${auto?.survival?.kept}/${(auto?.survival?.kept ?? 0) + (auto?.survival?.lost ?? 0)} facts kept by the summary`,
      );
      expect((await client.sessionsGet({ sessionId })).lastCompaction).toMatchObject({
        kept: auto?.survival?.kept,
        lost: auto?.survival?.lost,
      });
      const out = join(sandbox.root, 'report.html');
      expect(await runMemctl(sandbox, ['export', sessionId, '--format', 'html', '--out', out])).toMatchObject({
        code: 0,
      });
      expect(readFileSync(out, 'utf8')).toContain(`its summary kept ${manual?.survival?.kept}/`);
      // Asked again, nothing is recorded twice.
      expect((await client.handoffStatus({ sessionId })).compactions).toHaveLength(2);
    } finally {
      client.close();
    }
  });

  it('the status line asking first starts the scoring: a later answer has the score', async () => {
    const { sessionId, client } = await compactedBefore();
    try {
      await eventually(
        async () => (await client.sessionsGet({ sessionId })).lastCompaction !== undefined,
        'sessions.get to carry the last compaction score',
      );
    } finally {
      client.close();
    }
  });
});
