/**
 * Issue 28 item 1: the context window of each session as Claude Code has it. Claude Code 2.1.197
 * runs Opus 4.8 at 1M by default and records the bare `claude-opus-4-8`; what Claude Code states
 * (the status line's `context_window.context_window_size`) wins over memd's table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../client/index.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, startDaemon, type Sandbox } from '../helpers/sandbox.js';

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
    expect(summary.threshold).toMatchObject({ window: 1_000_000, effectiveWindow: 980_000, autoCompactAt: 967_000, blockingAt: 977_000 });
    expect(summary.threshold.tokensLeft).toBe(967_000 - summary.contextTokens);
    const listed = (await client.sessionsList({})).sessions.find((session) => session.sessionId === loop.sessionId);
    expect(listed?.threshold.window).toBe(1_000_000);
    const status = await runMemctl(sandbox, ['status', loop.sessionId]);
    expect(status.stdout).toContain('window 1.0M');
  });

  it('is 1M on the status line when Claude Code says nothing of the window', async () => {
    const summary = await client.sessionsGet({ sessionId: loop.sessionId });
    const run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, statusInput(loop.sessionId, null));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`${Math.round((967_000 - summary.contextTokens) / 1000)}K left`);
  });

  it('takes 200K when Claude Code states it for the session, keeps it, and shows it on every surface', async () => {
    const before = await client.sessionsGet({ sessionId: loop.sessionId });
    const left = 167_000 - before.contextTokens;
    const run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, statusInput(loop.sessionId, 200_000));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`${Math.round(left / 1000)}K left`);
    expect(run.stdout).not.toContain('no memd');
    // Kept for the session: clients that state nothing see it too.
    const after = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(after.threshold).toMatchObject({ window: 200_000, autoCompactAt: 167_000, tokensLeft: left });
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
    const run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, statusInput(loop.sessionId, 1_000_000));
    const summary = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(summary.threshold.window).toBe(1_000_000);
    expect(run.stdout).toContain(`${Math.round((967_000 - summary.contextTokens) / 1000)}K left`);
  });
});
