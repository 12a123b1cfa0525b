/**
 * Issue 28 items 1 and 5 over a real daemon: the window Claude Code states for a session (the
 * SessionStart hook's `model`, the status line's `context_window_size`) is the one every surface
 * shows: memctl status, sessions and watch, the MCP server and the HTML report; and a project whose
 * folder was named after another path (`-home-u-shop` holding sessions run in invoice-service) has
 * one name everywhere: tables, search, usage, the archive and MCP.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import {
  eventually,
  keepForFile,
  MEMCTL_MAIN,
  makeSandbox,
  runMemctl,
  type Sandbox,
  spawnTracked,
  startDaemon,
} from '../helpers/sandbox.js';

/** Run at 1M: the SessionStart hook says `claude-sonnet-4-5[1m]`; its transcript only the bare id. */
const ONE_M = 'b1000000-0000-4000-8000-000000000001';
/** Run at 200K: the status line says so. */
const TWO_HUNDRED_K = 'b2000000-0000-4000-8000-000000000002';
/** A folder Claude Code named after a path that is not the sessions' cwd (copied from another machine). */
const FOREIGN_FOLDER = '-home-u-shop';
const WORD = 'wombatquill';
const MODEL = 'claude-sonnet-4-5-20250929';

let sandbox: Sandbox;
let client: Client;
let invoiceCwd: string;
let billingCwd: string;

function writer(sessionId: string, cwd: string): TranscriptWriter {
  const transcript = new TranscriptWriter({ sessionId, cwd, version: '2.1.197', model: MODEL });
  transcript.prompt(`Find the ${WORD} in ${cwd}`);
  transcript.toolRound('Read', { file_path: `${cwd}/README.md` }, '# readme', growingUsage(1));
  return transcript;
}

/** What the status line gets from Claude Code on stdin. */
function statusInput(sessionId: string, cwd: string, size: number): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: sessionId,
    transcript_path: `/nowhere/${sessionId}.jsonl`,
    cwd,
    model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
    version: '2.1.197',
    context_window: { context_window_size: size, used_percentage: 10 },
  });
}

async function listSessions(cwd: string): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(sandbox.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MEMCTL_MAIN, 'mcp'],
    env,
    cwd,
    stderr: 'pipe',
  });
  const mcp = new McpClient({ name: 'memd-test', version: '1.0.0' });
  await mcp.connect(transport);
  try {
    const texts = async (name: string, args: Record<string, unknown>) => {
      const result = await mcp.callTool({ name, arguments: args });
      return (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
    };
    return `${await texts('list_sessions', { project: 'all' })}\n${await texts('search_sessions', { query: WORD })}`;
  } finally {
    await mcp.close();
  }
}

beforeAll(async () => {
  sandbox = makeSandbox();
  invoiceCwd = join(sandbox.root, 'srv', 'invoice-service');
  billingCwd = join(sandbox.root, 'src', 'billing');
  mkdirSync(invoiceCwd, { recursive: true });
  mkdirSync(billingCwd, { recursive: true });
  writeTranscript(join(sandbox.projectsDir, FOREIGN_FOLDER, `${ONE_M}.jsonl`), writer(ONE_M, invoiceCwd));
  writeTranscript(mainPath(sandbox.projectsDir, billingCwd, TWO_HUNDRED_K), writer(TWO_HUNDRED_K, billingCwd));
  keepForFile(sandbox, await startDaemon(sandbox));
  client = createClient({ env: sandbox.env, autostart: false });
  await eventually(
    async () => (await client.searchQuery({ query: WORD, limit: 10 })).hits.length === 2,
    'search to index both prompts',
  );
  await eventually(
    async () => (await client.archiveList({})).sessions.length === 2,
    'the archive to hold both sessions',
  );
});

afterAll(() => client?.close());

describe('the window Claude Code states, on every surface', () => {
  it("takes the SessionStart hook's [1m] model as the session's window, the hook exiting 0 in silence", async () => {
    expect((await client.sessionsGet({ sessionId: ONE_M })).threshold.window).toBe(200_000);
    const hook = JSON.stringify({
      session_id: ONE_M,
      transcript_path: join(sandbox.projectsDir, FOREIGN_FOLDER, `${ONE_M}.jsonl`),
      cwd: invoiceCwd,
      hook_event_name: 'SessionStart',
      source: 'resume',
      model: 'claude-sonnet-4-5[1m]',
    });
    const run = await runMemctl(sandbox, ['hook', 'session-start'], {}, hook);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect((await client.sessionsGet({ sessionId: ONE_M })).threshold).toMatchObject({
      window: 1_000_000,
      autoCompactAt: 1_000_000,
      autoCompactMode: 'reactive',
    });
    // The status line states 200K for the other session.
    const line = await runMemctl(
      sandbox,
      ['statusline'],
      { COLUMNS: '200' },
      statusInput(TWO_HUNDRED_K, billingCwd, 200_000),
    );
    expect(line).toMatchObject({ code: 0, stderr: '' });
    expect((await client.sessionsGet({ sessionId: TWO_HUNDRED_K })).threshold).toMatchObject({
      window: 200_000,
      autoCompactAt: 200_000,
      autoCompactMode: 'reactive',
    });
  });

  it('memctl status shows each window', async () => {
    expect((await runMemctl(sandbox, ['status', ONE_M])).stdout).toContain('window 1.0M');
    expect((await runMemctl(sandbox, ['status', TWO_HUNDRED_K])).stdout).toContain('window 200K');
  });

  it("memctl sessions and one frame of memctl watch show each session's window, where Claude Code compacts", async () => {
    const rowOf = (text: string, sessionId: string) =>
      text.split('\n').find((row) => row.includes(sessionId.slice(0, 8))) ?? '';
    const sessions = (await runMemctl(sandbox, ['sessions'], { COLUMNS: '200' })).stdout;
    expect(rowOf(sessions, ONE_M)).toContain('/1.0M');
    expect(rowOf(sessions, TWO_HUNDRED_K)).toContain('/200K');
    if (spawnSync('script', ['--version']).status !== 0) return;
    const tty = spawnTracked('script', ['-qfec', `${process.execPath} ${MEMCTL_MAIN} watch`, '/dev/null'], {
      ...sandbox.env,
      COLUMNS: '200',
    });
    try {
      await eventually(
        () => tty.output().includes(TWO_HUNDRED_K.slice(0, 8)) && tty.output().includes(ONE_M.slice(0, 8)),
        'the first frame',
      );
      const frame = tty.output().split('\x1b[2J').at(-1) ?? '';
      expect(rowOf(frame, ONE_M)).toContain('/1.0M');
      expect(rowOf(frame, TWO_HUNDRED_K)).toContain('/200K');
    } finally {
      tty.child.kill('SIGTERM');
    }
  });

  it("the MCP server's list_sessions says each window", async () => {
    const text = await listSessions(billingCwd);
    const entry = (sessionId: string) => text.slice(text.indexOf(`- ${sessionId}`)).split('\n- ')[0] ?? '';
    expect(entry(ONE_M)).toContain('context used, window 1.0M');
    expect(entry(TWO_HUNDRED_K)).toContain('context used, window 200K');
  });

  it("the HTML report's chart names each window", async () => {
    // Sonnet 4.5 without an auto-compact window: Claude Code 2.1.197 compacts when the API refuses, at the window.
    for (const [sessionId, window] of [
      [ONE_M, '1,000,000'],
      [TWO_HUNDRED_K, '200,000'],
    ] as const) {
      const out = join(sandbox.root, `${sessionId}.html`);
      const run = await runMemctl(sandbox, ['export', sessionId, '--format', 'html', '--out', out]);
      expect(run, run.stderr).toMatchObject({ code: 0 });
      expect(readFileSync(out, 'utf8')).toContain(
        `window ${window} tokens (compacts when the API refuses the request)`,
      );
    }
  });
});

describe('one name for a project whose folder was named after another path', () => {
  it('search, usage, the archive and MCP say invoice-service, as memctl sessions does', async () => {
    const sessions = (await runMemctl(sandbox, ['sessions'], { COLUMNS: '200' })).stdout;
    expect(sessions).toContain('invoice-service');
    const search = await runMemctl(sandbox, ['search', WORD]);
    expect(search.stdout).toContain('invoice-service');
    expect(search.stdout).not.toContain(FOREIGN_FOLDER);
    const hits = (await client.searchQuery({ query: WORD })).hits;
    expect(hits.find((hit) => hit.sessionId === ONE_M)?.projectName).toBe('invoice-service');
    // The name shown is taken back.
    expect(
      (await client.searchQuery({ query: WORD, project: 'invoice-service' })).hits.map((hit) => hit.sessionId),
    ).toEqual([ONE_M]);
    const usage = await client.usageReport({ by: 'project' });
    expect(usage.rows.find((row) => row.key === FOREIGN_FOLDER)?.name).toBe('invoice-service');
    expect((await client.archiveList({})).sessions.find((session) => session.sessionId === ONE_M)?.projectName).toBe(
      'invoice-service',
    );
    const archive = await runMemctl(sandbox, ['archive', 'list']);
    expect(archive.stdout).toContain('invoice-service');
    expect(archive.stdout).not.toContain(FOREIGN_FOLDER);
    const mcp = await listSessions(invoiceCwd);
    expect(mcp).toContain(`project invoice-service (${FOREIGN_FOLDER})`);
    expect(mcp).toMatch(/session b1000000-\S+ · invoice-service/);
    expect(mcp).not.toContain(`project ${FOREIGN_FOLDER}`);
  });
});
