/**
 * Issue 28 item 1: the context window of each session as Claude Code has it. Claude Code 2.1.197
 * runs Opus 4.8 at 1M by default and records the bare `claude-opus-4-8`; what Claude Code states
 * (the status line's `context_window.context_window_size`) wins over memd's table. Neither Opus 4.8
 * nor Sonnet 4.5 has an auto-compact window in 2.1.197, so these sessions compact only when the API
 * refuses (reactive mode): tokens left count to the window, as /context's free space does.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import {
  eventually,
  keepForFile,
  makeSandbox,
  type RunResult,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const loop = manifest('coding-loop');

function statusInput(sessionId: string, size: number | null, modelId = 'claude-opus-4-8'): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: sessionId,
    transcript_path: `/nowhere/${sessionId}.jsonl`,
    cwd: loop.cwd,
    model: { id: modelId, display_name: 'Opus 4.8' },
    version: '2.1.197',
    cost: { total_cost_usd: 0.5, total_duration_ms: 1000 },
    ...(size === null ? {} : { context_window: { context_window_size: size, used_percentage: 3 } }),
  });
}

/**
 * `memctl statusline` with memd's figures: it gives memd 150 ms and on a busy machine a try may
 * fall back to Claude Code's own ("no memd"), so it is run until memd answers.
 */
async function memdStatusLine(sandbox: Sandbox, input: string): Promise<RunResult> {
  let run: RunResult = { code: null, stdout: '', stderr: '' };
  await eventually(async () => {
    run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, input);
    return !run.stdout.includes('no memd');
  }, 'memctl statusline with memd’s figures');
  return run;
}

describe('the window of a bare claude-opus-4-8 session (Claude Code 2.1.197 default: 1M)', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the fixture to be indexed');
  });

  it('is 1M in sessions.get, sessions.list and memctl status', async () => {
    expect(loop.model).toBe('claude-opus-4-8');
    const summary = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(summary.threshold).toMatchObject({
      window: 1_000_000,
      effectiveWindow: 980_000,
      autoCompactAt: 1_000_000,
      blockingAt: 1_000_000,
      autoCompactMode: 'reactive',
    });
    expect(summary.threshold.tokensLeft).toBe(1_000_000 - summary.contextTokens);
    const listed = (await client.sessionsList({})).sessions.find((session) => session.sessionId === loop.sessionId);
    expect(listed?.threshold.window).toBe(1_000_000);
    const status = await runMemctl(sandbox, ['status', loop.sessionId]);
    expect(status.stdout).toContain('window 1.0M');
  });

  it('is 1M on the status line when Claude Code says nothing of the window', async () => {
    const summary = await client.sessionsGet({ sessionId: loop.sessionId });
    const run = await memdStatusLine(sandbox, statusInput(loop.sessionId, null));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(
      `${Math.round(summary.contextTokens / 10_000)}% context used · ${Math.round((1_000_000 - summary.contextTokens) / 1000)}K left`,
    );
  });

  it('takes 200K when Claude Code states it for the session, keeps it, and shows it on every surface', async () => {
    const before = await client.sessionsGet({ sessionId: loop.sessionId });
    const left = 200_000 - before.contextTokens;
    const run = await memdStatusLine(sandbox, statusInput(loop.sessionId, 200_000));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(
      `${Math.round(before.contextTokens / 2_000)}% context used · ${Math.round(left / 1000)}K left`,
    );
    expect(run.stdout).not.toContain('no memd');
    // Kept for the session: clients that state nothing see it too.
    const after = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(after.threshold).toMatchObject({
      window: 200_000,
      autoCompactAt: 200_000,
      tokensLeft: left,
      autoCompactMode: 'reactive',
    });
    const status = await runMemctl(sandbox, ['status', loop.sessionId]);
    expect(status.stdout).toContain('window 200K');
    // A model id without [1m] states nothing: it never forces 200K back or 1M on.
    const bare = await client.sessionsGet({ sessionId: loop.sessionId, model: 'claude-opus-4-8' });
    expect(bare.threshold.window).toBe(200_000);
    const oneM = await client.sessionsGet({ sessionId: loop.sessionId, model: 'claude-opus-4-8[1m]' });
    expect(oneM.threshold.window).toBe(1_000_000);
  });

  it('never lets memd override the window on the status line, even a memd that ignores the statement', async () => {
    // The window Claude Code states wins whatever memd answers: here 1M again after 200K above.
    const run = await memdStatusLine(sandbox, statusInput(loop.sessionId, 1_000_000));
    const summary = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(summary.threshold.window).toBe(1_000_000);
    expect(run.stdout).toContain(`${Math.round((1_000_000 - summary.contextTokens) / 1000)}K left`);
  });
});

describe('a request above 200K in the transcript proves a larger window', () => {
  it('keeps the session at 1M after its newest request came back under 200K', async () => {
    const sandbox = makeSandbox();
    const sessionId = '7d0c1e0a-5b1f-4c7e-9a51-2f0b1e9d0a28';
    const dir = join(sandbox.projectsDir, '-home-user-src-big');
    mkdirSync(dir, { recursive: true });
    const model = 'claude-sonnet-4-5-20250929';
    const at = (second: number) => `2026-12-02T10:00:${String(second).padStart(2, '0')}.000Z`;
    const base = { isSidechain: false, sessionId, cwd: '/home/user/src/big', version: '2.1.197', gitBranch: 'main' };
    const user = (uuid: string, parentUuid: string | null, second: number, text: string) => ({
      ...base,
      parentUuid,
      type: 'user',
      uuid,
      timestamp: at(second),
      message: { role: 'user', content: text },
    });
    const reply = (uuid: string, parentUuid: string, second: number, n: number, cacheRead: number) => ({
      ...base,
      parentUuid,
      type: 'assistant',
      uuid,
      timestamp: at(second),
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        role: 'assistant',
        model,
        content: [{ type: 'text', text: `answer ${n}` }],
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: cacheRead,
          output_tokens: 50,
        },
      },
    });
    const lines = [
      user('u1', null, 1, 'read the whole repository'),
      reply('a1', 'u1', 2, 1, 300_000),
      user('u2', 'a1', 3, 'now summarise'),
      reply('a2', 'u2', 4, 2, 40_000),
    ];
    writeFileSync(join(dir, `${sessionId}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () =>
          (await client.sessionsList({})).sessions.some(
            (session) => session.sessionId === sessionId && session.contextTokens > 40_000,
          ),
        'the session',
      );
      const summary = await client.sessionsGet({ sessionId });
      expect(summary.model).toBe(model);
      expect(summary.threshold).toMatchObject({
        window: 1_000_000,
        autoCompactAt: 1_000_000,
        tokensLeft: 1_000_000 - summary.contextTokens,
        autoCompactMode: 'reactive',
      });
    } finally {
      client.close();
    }
  });
});
