/**
 * Sessions end to end: the recorded transcripts go into a real daemon's projects dir, and what
 * sessions.list reports must equal the fixtures' manifests and ccusage's totals for the same files.
 */
import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Client, SessionSummary } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { type ManifestUsage, manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects, SCENARIOS } from '../helpers/ingest.js';
import { placeholderSession, writePlaceholderSession } from '../helpers/real-shapes.js';
import {
  eventually,
  MEMCTL_MAIN,
  makeSandbox,
  ROOT,
  runMemctl,
  type Sandbox,
  spawnTracked,
  startDaemon,
} from '../helpers/sandbox.js';

/** ccusage 20 (with its native binary, @ccusage/ccusage-linux-x64, at the same version). */
const CCUSAGE = join(ROOT, 'node_modules/ccusage/src/cli.js');
/** Trailing `/exit` command entries after the last response add chars/4 (fixtures README). */
const INTERACTIVE_TRAILING_ESTIMATE = 108;

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

async function ingestedFixtures(
  daemonEnv: NodeJS.ProcessEnv = {},
): Promise<{ sandbox: Sandbox; client: Client; sessions: SessionSummary[] }> {
  const sandbox = makeSandbox();
  copyFixtureProjects(sandbox.projectsDir);
  await startDaemon(sandbox, undefined, daemonEnv);
  const client = createClient({ env: sandbox.env, autostart: false });
  await eventually(() => caughtUp(client), 'ingest to catch up');
  // The archive follows the backfill; once it holds every transcript, `archived` stays put.
  await eventually(async () => {
    const { archive } = await client.daemonStatus();
    return archive.state === 'live' && archive.pendingBytes === 0;
  }, 'the archive to catch up');
  const { sessions } = await client.sessionsList();
  return { sandbox, client, sessions };
}

function figures(usage: SessionSummary['usage']['main']): ManifestUsage {
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_creation_input_tokens: usage.cacheCreation,
    cache_read_input_tokens: usage.cacheRead,
    ephemeral_5m_input_tokens: usage.cache5m,
    ephemeral_1h_input_tokens: usage.cache1h,
    assistantMessages: usage.assistantMessages,
  };
}

interface CcusageSession {
  /** The session id: ccusage 20 groups a session's main transcript and its sub-agent files. */
  period: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalCost: number;
}

function ccusageSessions(claudeRoot: string): Promise<CcusageSession[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CCUSAGE, 'session', '--json', '--offline'],
      { env: { ...process.env, CLAUDE_CONFIG_DIR: claudeRoot }, timeout: 60_000 },
      (error, stdout) =>
        error ? reject(error) : resolve((JSON.parse(stdout) as { session: CcusageSession[] }).session),
    );
  });
}

/** ccusage's cost is a float sum in another order: equal to the cent's ten-thousandth. */
const COST_DIGITS = 6;

async function expectCcusageAgrees(sandbox: Sandbox, sessions: readonly SessionSummary[]): Promise<number> {
  const theirs = await ccusageSessions(dirname(sandbox.projectsDir));
  expect(theirs.length).toBeGreaterThan(0);
  for (const row of theirs) {
    const ours = sessions.find((session) => session.sessionId === row.period)?.usage.total;
    expect(ours, row.period).toBeDefined();
    expect(
      { input: ours?.input, output: ours?.output, cacheCreation: ours?.cacheCreation, cacheRead: ours?.cacheRead },
      row.period,
    ).toEqual({
      input: row.inputTokens,
      output: row.outputTokens,
      cacheCreation: row.cacheCreationTokens,
      cacheRead: row.cacheReadTokens,
    });
    expect(ours?.costUsd, row.period).toBeCloseTo(row.totalCost, COST_DIGITS);
  }
  return theirs.length;
}

describe('sessions over the recorded transcripts', () => {
  it('reports every fixture with the usage and context tokens of its manifest', async () => {
    const { client, sessions } = await ingestedFixtures();
    try {
      expect(sessions.map((session) => session.sessionId).sort()).toEqual(
        SCENARIOS.map((name) => manifest(name).sessionId).sort(),
      );
      for (const scenario of SCENARIOS) {
        const expected = manifest(scenario);
        const session = sessions.find((candidate) => candidate.sessionId === expected.sessionId);
        expect(session, scenario).toBeDefined();
        if (!session) continue;
        expect(figures(session.usage.main), `${scenario} main`).toEqual(expected.usage.main);
        expect(figures(session.usage.sidechain), `${scenario} sidechain`).toEqual(expected.usage.sidechain);
        expect(figures(session.usage.total), `${scenario} total`).toEqual(expected.usage.total);
        const trailing = scenario === 'interactive' ? INTERACTIVE_TRAILING_ESTIMATE : 0;
        expect(session.contextTokens, `${scenario} context`).toBe(expected.contextTokens + trailing);
        expect(session.cwd).toBe(expected.cwd);
        expect(session.model).toBe(expected.model);
        expect(session.compactions.count).toBe(expected.compactions.count);
        // sessions.get alone carries what the status line reported (issue 31): none here.
        const { reported, ...got } = await client.sessionsGet({ sessionId: expected.sessionId });
        expect(got).toEqual(session);
        expect(reported).toEqual({ rateLimits: null, accountRateLimits: null, promptCache: null, effort: null });
      }
    } finally {
      client.close();
    }
  });

  it('agrees with ccusage 20 on every session total and cost of the same files', async () => {
    const { sandbox, client, sessions } = await ingestedFixtures();
    client.close();
    expect(await expectCcusageAgrees(sandbox, sessions)).toBe(SCENARIOS.length);
  });

  it('agrees with ccusage 20 on sessions whose responses carry placeholder output tokens', async () => {
    const sandbox = makeSandbox();
    const written = [
      placeholderSession('5e1f0c2a-7b3d-4e8f-9a10-2b3c4d5e6f70', '/home/u/src/uploader'),
      placeholderSession('6f2a1d3b-8c4e-4f90-8b21-3c4d5e6f7081', '/home/u/src/uploader', 12, '2.1.39'),
      placeholderSession('7a3b2e4c-9d5f-4a01-9c32-4d5e6f708192', '/home/u/work/billing', 3),
    ];
    for (const session of written) writePlaceholderSession(sandbox.projectsDir, session);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    const { sessions } = await client.sessionsList();
    client.close();
    for (const session of written) {
      const ours = sessions.find((candidate) => candidate.sessionId === session.sessionId);
      expect(ours?.usage.total.output).toBe(session.expectedOutput);
      expect(ours?.usage.total.assistantMessages).toBe(session.expectedResponses);
    }
    expect(await expectCcusageAgrees(sandbox, sessions)).toBe(written.length);
  });

  it('answers compact.thresholds for a session and for a model and token count', async () => {
    const { client, sessions } = await ingestedFixtures();
    try {
      const first = sessions[0];
      expect(first).toBeDefined();
      if (!first) return;
      expect(await client.compactThresholds({ sessionId: first.sessionId })).toEqual(first.threshold);
      const near = await client.compactThresholds({ model: 'claude-opus-4-6', tokens: 170_000 });
      expect(near).toMatchObject({ window: 200_000, autoCompactAt: 167_000, state: 'autocompact' });
      // Claude Code 2.1.197 runs Opus 4.8 at 1M by default, `[1m]` or not, and with no auto-compact
      // window compacts it only when the API refuses, at the window (reactive mode, issue 28).
      const opus48 = await client.compactThresholds({ model: 'claude-opus-4-8', tokens: 170_000 });
      expect(opus48).toMatchObject({
        window: 1_000_000,
        autoCompactAt: 1_000_000,
        tokensLeft: 830_000,
        percentUsed: 17,
        state: 'ok',
        autoCompactMode: 'reactive',
      });
      expect(near.autoCompactMode).toBe('threshold');
      await expect(client.sessionsGet({ sessionId: 'no-such-session' })).rejects.toMatchObject({ code: 1001 });
    } finally {
      client.close();
    }
  });

  it('prints the sessions table with context bars, most recent first', async () => {
    const { sandbox, client, sessions } = await ingestedFixtures();
    client.close();
    const result = await runMemctl(sandbox, ['sessions']);
    expect(result.code).toBe(0);
    const rows = result.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(sessions.length);
    expect(rows.map((row) => row.slice(0, 8))).toEqual(sessions.map((session) => session.sessionId.slice(0, 8)));
    // Each session's bar in its mode: the share of the auto-compact threshold, or of the window
    // ("context used") where Claude Code compacts only when the API refuses.
    rows.forEach((row, i) => {
      const reactive = sessions[i]?.threshold.autoCompactMode === 'reactive';
      expect(row).toMatch(
        reactive
          ? /▕[█░]{8}▏ \d+% context used · \d+K\/(?:200K|1\.0M), \d+K left/
          : /▕[█░]{8}▏ \d+% used of auto-compact · \d+K\/\d+K, \d+K left/,
      );
    });
    expect(sessions.some((session) => session.threshold.autoCompactMode === 'reactive')).toBe(true);
    const json = await runMemctl(sandbox, ['sessions', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ sessions, total: sessions.length, hidden: 0, nextCursor: null });
    const status = await runMemctl(sandbox, ['status']);
    expect(status.stdout).toContain('ingest    7 sessions');
    expect(status.stdout).toMatch(/▕[█░]{8}▏/);
  });

  it('sends session.updated for an append, and thresholdCrossed when the context passes auto-compact', async () => {
    // A 1M auto-compact window set: the coding-loop session (claude-opus-4-8, 1M) compacts ahead at
    // 967K (threshold mode); without it Claude Code 2.1.197 would wait for the API to refuse at 1M.
    const { sandbox, client, sessions } = await ingestedFixtures({ CLAUDE_CODE_AUTO_COMPACT_WINDOW: '1000000' });
    try {
      const expected = manifest('coding-loop');
      const before = sessions.find((session) => session.sessionId === expected.sessionId);
      expect(before?.threshold.state).toBe('ok');
      const updates: SessionSummary[] = [];
      const crossings: { from: string; to: string }[] = [];
      await client.on('session.updated', (session) => updates.push(session));
      await client.on('session.thresholdCrossed', (event) => crossings.push(event));
      const transcript = join(sandbox.projectsDir, expected.transcript.replace(/^projects\//, ''));
      const usage = {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 970_000,
        output_tokens: 100,
      };
      const line = {
        parentUuid: null,
        isSidechain: false,
        type: 'assistant',
        uuid: 'live-append-0001',
        timestamp: '2026-12-02T11:00:00.000Z',
        sessionId: expected.sessionId,
        requestId: 'req_live_1',
        message: {
          id: 'msg_live_1',
          role: 'assistant',
          model: expected.model,
          content: [{ type: 'text', text: 'done' }],
          usage,
        },
      };
      appendFileSync(transcript, `${JSON.stringify(line)}\n`);
      await eventually(
        () => updates.some((session) => session.sessionId === expected.sessionId && session.contextTokens === 970_110),
        `the update (got ${JSON.stringify(updates.map((u) => [u.sessionId.slice(0, 8), u.contextTokens]))})`,
      );
      await eventually(() => crossings.length > 0, 'the threshold crossing');
      expect(crossings[0]).toMatchObject({ sessionId: expected.sessionId, from: 'ok', to: 'autocompact' });
      const after = await client.sessionsGet({ sessionId: expected.sessionId });
      expect(after.usage.main.cacheRead).toBe(expected.usage.main.cache_read_input_tokens + 970_000);
    } finally {
      client.close();
    }
  });

  it('memctl watch prints events as lines off a terminal, and redraws the table on one', async () => {
    const { sandbox, client } = await ingestedFixtures();
    client.close();
    const expected = manifest('coding-loop');
    const transcript = join(sandbox.projectsDir, expected.transcript.replace(/^projects\//, ''));
    const prompt = (n: number) =>
      `${JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', uuid: `watch-${n}`, timestamp: '2026-12-02T11:00:00.000Z', sessionId: expected.sessionId, message: { role: 'user', content: `prompt ${n}` } })}\n`;

    const lines = spawnTracked(process.execPath, [MEMCTL_MAIN, 'watch', '--json'], sandbox.env);
    await eventually(() => lines.output().includes('watching'), 'watch to subscribe');
    appendFileSync(transcript, prompt(1));
    await eventually(() => lines.output().includes('"topic":"session.updated"'), 'a session.updated line');
    lines.child.kill('SIGINT');
    expect((await lines.exited).code).toBe(0);

    if (spawnSync('script', ['--version']).status !== 0) return;
    const tty = spawnTracked('script', ['-qfec', `${process.execPath} ${MEMCTL_MAIN} watch`, '/dev/null'], sandbox.env);
    await eventually(() => tty.output().includes('SESSION'), 'the first table');
    const before = tty.output().split('\x1b[2J').length;
    appendFileSync(transcript, prompt(2));
    await eventually(() => tty.output().split('\x1b[2J').length > before, 'a redraw');
    expect(tty.output()).toMatch(/▕[█░]{8}▏/);
    tty.child.kill('SIGTERM');
  });
});
