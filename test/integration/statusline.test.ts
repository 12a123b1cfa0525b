/**
 * `memctl statusline` as Claude Code runs it: JSON on stdin, one line out, exit 0, nothing on
 * stderr; from a real memd when it answers, from the stdin fields when none does or one hangs.
 * Sonnet 4.5 and Opus 4.8 have no auto-compact window in Claude Code 2.1.197: they compact only
 * when the API refuses (reactive mode), and the line says "N% context used" as Claude Code's meter
 * does; CLAUDE_CODE_AUTO_COMPACT_WINDOW makes it count down to auto-compact instead.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { factsFromSummary } from '../../client/memctl/quick/statusline.js';
import { formatStatusLine } from '../../shared/statusline/format.js';
import { computeThresholds } from '../../shared/transcript/thresholds.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const loop = manifest('coding-loop');
/** Claude Code 2.1's statusLine input, as its docs give it (context_window in newer versions). */
function claudeInput(sessionId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: sessionId,
    transcript_path: `/nowhere/${sessionId}.jsonl`,
    cwd: loop.cwd,
    model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
    workspace: { current_dir: loop.cwd, project_dir: loop.cwd },
    version: '2.1.197',
    cost: { total_cost_usd: 0.5, total_duration_ms: 1000 },
    context_window: {
      context_window_size: 200_000,
      used_percentage: 30,
      current_usage: {
        input_tokens: 10,
        output_tokens: 500,
        cache_creation_input_tokens: 1_000,
        cache_read_input_tokens: 58_490,
      },
    },
    ...extra,
  });
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe('memctl statusline with memd running', () => {
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

  it("prints memd's figures for the session, as every client formats them, and nothing else", async () => {
    const run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, claudeInput(loop.sessionId));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const summary = await client.sessionsGet({ sessionId: loop.sessionId });
    const facts = factsFromSummary(summary, 0.5);
    expect(facts).not.toBeNull();
    expect(run.stdout).toBe(
      `${formatStatusLine(facts as NonNullable<typeof facts>, { color: false, columns: 200, now: Date.now() })}\n`,
    );
    expect(run.stdout).toMatch(/^▕[█░]{8}▏ \d+% context used · \d+K left · 0 compactions · mem - · \$\d+\.\d\d\n$/);
    expect(run.stdout).toContain(`$${(summary.usage.total.costUsd ?? 0).toFixed(2)}`);
    expect(run.stdout).not.toContain('no memd');
  });

  it('shows how old the session memory is once extracted', async () => {
    await client.memoryExtract({ sessionId: loop.sessionId });
    const run = await runMemctl(sandbox, ['statusline'], {}, claudeInput(loop.sessionId));
    expect(run.stdout).toMatch(/ · mem \ds · /);
  });

  it('colours unless NO_COLOR, and fits COLUMNS', async () => {
    const coloured = await runMemctl(sandbox, ['statusline'], { NO_COLOR: '' }, claudeInput(loop.sessionId));
    expect(coloured.stdout).toContain('\x1b[32m');
    const narrow = await runMemctl(sandbox, ['statusline'], { COLUMNS: '30' }, claudeInput(loop.sessionId));
    expect([...narrow.stdout.trimEnd()].length).toBeLessThanOrEqual(30);
    expect(narrow.stdout).toMatch(/^\d+% context used · \d+K left\n$/);
    const narrower = await runMemctl(sandbox, ['statusline'], { COLUMNS: '20' }, claudeInput(loop.sessionId));
    expect(narrower.stdout).toMatch(/^\d+% context used\n$/);
  });

  it('says when memd does not know the session yet, with the stdin figures', async () => {
    const run = await runMemctl(sandbox, ['statusline'], {}, claudeInput('99999999-0000-4000-8000-000000000000'));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('memd: not indexed yet');
    expect(run.stdout).toContain('▕██░░░░░░▏ 30% context used · 140K left');
  });
});

describe('memctl statusline without memd', () => {
  it("falls back to Claude Code's fields, marked, and starts no daemon", async () => {
    const sandbox = makeSandbox();
    const run = await runMemctl(sandbox, ['statusline'], {}, claudeInput(loop.sessionId));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // 60,000 tokens of Sonnet 4.5's 200K window: 30 % used, Claude Code's own used_percentage.
    const threshold = computeThresholds({ model: 'claude-sonnet-4-5', tokens: 60_000, env: {} });
    expect(run.stdout).toBe(
      `${formatStatusLine({ threshold, compactions: null, memoryAt: undefined, costUsd: 0.5, note: 'no memd' }, { color: false, columns: 120, now: 0 })}\n`,
    );
    expect(run.stdout).toBe('▕██░░░░░░▏ 30% context used · 140K left · $0.50 · no memd\n');
    // With a 200K auto-compact window set it compacts at 167K: 60,000 is 36 % of it.
    const ahead = await runMemctl(
      sandbox,
      ['statusline'],
      { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' },
      claudeInput(loop.sessionId),
    );
    expect(ahead.stdout).toBe('▕███░░░░░▏ 36% used of auto-compact · 107K left · $0.50 · no memd\n');
    expect(existsSync(sandbox.socketPath)).toBe(false);
  });

  it('uses used_percentage when current_usage is absent, and shows what is left when the context is unknown', async () => {
    const sandbox = makeSandbox();
    const percentOnly = await runMemctl(
      sandbox,
      ['statusline'],
      {},
      claudeInput('s', { context_window: { context_window_size: 200_000, used_percentage: 50 } }),
    );
    expect(percentOnly.stdout).toBe('▕████░░░░▏ 50% context used · 100K left · $0.50 · no memd\n');
    const percentAhead = await runMemctl(
      sandbox,
      ['statusline'],
      { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' },
      claudeInput('s', { context_window: { context_window_size: 200_000, used_percentage: 50 } }),
    );
    expect(percentAhead.stdout).toBe('▕█████░░░▏ 60% used of auto-compact · 67K left · $0.50 · no memd\n');
    const older = await runMemctl(sandbox, ['statusline'], {}, claudeInput('s', { context_window: undefined }));
    expect(older.stdout).toBe('$0.50 · no memd\n');
  });

  it.each([
    ['garbage', 'not json at all'],
    ['an array', '[1,2,3]'],
    ['nothing', ''],
    [
      'wrong types',
      JSON.stringify({ session_id: 42, model: 'x', cost: { total_cost_usd: 'a lot' }, context_window: [] }),
    ],
  ])('prints a line and exits 0 on %s', async (_what, input) => {
    const run = await runMemctl(makeSandbox(), ['statusline'], {}, input);
    expect(run).toEqual({ code: 0, stdout: 'no memd\n', stderr: '' });
  });

  it('gives up on a daemon that accepts but never answers, within its deadline', async () => {
    const sandbox = makeSandbox();
    mkdirSync(join(sandbox.runtimeDir), { recursive: true, mode: 0o700 });
    rmSync(sandbox.socketPath, { force: true });
    const server = createServer(() => {
      // Accepts and reads nothing: a wedged daemon.
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(sandbox.socketPath, resolve));
    const started = performance.now();
    const run = await runMemctl(sandbox, ['statusline'], {}, claudeInput(loop.sessionId));
    const elapsed = performance.now() - started;
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('no memd');
    // node's start-up plus the 150 ms deadline; far below Claude Code's own cancel.
    expect(elapsed).toBeLessThan(5_000);
  });
});

describe('memctl statusline and the window Claude Code states (issue 28)', () => {
  it("keeps Claude Code's window when memd answers another (a memd that ignores `window`)", async () => {
    const { PROTOCOL_VERSION } = await import('../../shared/protocol/daemon.js');
    const sandbox = makeSandbox();
    mkdirSync(join(sandbox.socketPath, '..'), { recursive: true });
    const stale = computeThresholds({ model: 'claude-opus-4-8', tokens: 30_000, env: {}, window: 200_000 });
    const requests: unknown[] = [];
    const server = createServer((socket) => {
      let buffered = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
          const message = JSON.parse(buffered.slice(0, newline)) as { id: number; params: unknown };
          buffered = buffered.slice(newline + 1);
          requests.push(message.params);
          const result =
            message.id === 1
              ? { protocol: PROTOCOL_VERSION }
              : {
                  threshold: stale,
                  compactions: { count: 0 },
                  usage: { total: { costUsd: 0.5 } },
                  sessionMemory: { extractedAt: null },
                };
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
        }
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(sandbox.socketPath, resolve));
    const input = JSON.parse(claudeInput(loop.sessionId, { model: { id: 'claude-opus-4-8' } })) as Record<
      string,
      unknown
    >;
    input.context_window = { context_window_size: 1_000_000, used_percentage: 3 };
    const run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, JSON.stringify(input));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // What the status line told memd, and 1,000,000 − 30,000 left (3 %, as Claude Code says) rather than memd's 170K.
    expect(requests).toContainEqual({ sessionId: loop.sessionId, window: 1_000_000, model: 'claude-opus-4-8' });
    expect(run.stdout).toContain('3% context used · 970K left');
    expect(run.stdout).not.toContain('170K left');
  });
});
