/**
 * Issue 29 item 2: what `memctl install-hooks`, `install-statusline` and `install-mcp` register is
 * run, as Claude Code runs it (`sh -c` for hooks and the status line, the MCP server's command and
 * args with an initialize request), over and over while a real `npm run build` rebuilds the
 * package it points into. None may exit non-zero or write to stderr at any point of the build.
 * The package is a temporary copy of this one (sources, the current dist/, node_modules linked),
 * so that the build cannot disturb the tests running beside this one.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { BUILD_MARKER, copyPackage } from '../helpers/package-copy.js';
import {
  eventually,
  keepForFile,
  makeSandbox,
  type RunResult,
  runNode,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

/** A full tsc build takes 10-60 s here, on two cores shared with other test runs. */
const BUILD_DEADLINE_MS = 240_000;
/** An MCP server answers initialize without memd; bin/memctl.cjs may wait for a build's swap first. */
const MCP_ANSWER_DEADLINE_MS = 40_000;

const loop = manifest('coding-loop');

interface Registered {
  hooks: Record<string, string>;
  statusLine: string;
  mcp: { command: string; args: string[] };
}

interface Outcome extends RunResult {
  what: string;
}

/** Registers memd with the sandbox's Claude Code config, by the copy's own memctl, and reads back what was registered. */
async function register(sandbox: Sandbox, copy: string): Promise<Registered> {
  const memctl = join(copy, 'dist', 'client', 'memctl', 'main.js');
  for (const install of ['install-hooks', 'install-statusline', 'install-mcp']) {
    const run = await runNode([memctl, install], sandbox.env);
    expect(run.code, `${install}: ${run.stderr}`).toBe(0);
  }
  const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
  const settings = JSON.parse(readFileSync(join(claudeDir, 'settings.json'), 'utf8')) as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
    statusLine: { command: string };
  };
  const hooks: Record<string, string> = {};
  for (const [event, entries] of Object.entries(settings.hooks)) hooks[event] = entries[0]?.hooks[0]?.command ?? '';
  const config = JSON.parse(readFileSync(join(claudeDir, '.claude.json'), 'utf8')) as {
    mcpServers: { memd: { command: string; args: string[] } };
  };
  return { hooks, statusLine: settings.statusLine.command, mcp: config.mcpServers.memd };
}

function runShell(what: string, command: string, env: NodeJS.ProcessEnv, cwd: string, input: string): Promise<Outcome> {
  return new Promise((done) => {
    const child = spawn('sh', ['-c', command], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Claude Code may close its end first; an EPIPE on our side is not the command's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.once('close', (code) => done({ what, code, stdout, stderr }));
  });
}

/** Starts the registered MCP server, sends initialize, closes stdin once it answers (or the deadline passes). */
function runMcp(server: Registered['mcp'], env: NodeJS.ProcessEnv, cwd: string): Promise<Outcome> {
  return new Promise((done) => {
    const child = spawn(server.command, server.args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.stdin.end(), MCP_ANSWER_DEADLINE_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on('error', () => {});
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rebuild-test', version: '0' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    child.once('close', (code) => {
      clearTimeout(timer);
      const answered = /"id":1\b/.test(stdout) ? '' : `no answer to initialize; stdout: ${stdout}`;
      done({ what: 'mcp initialize', code, stdout, stderr: stderr + answered });
    });
  });
}

describe('the registered hooks, status line and MCP server while npm run build runs', () => {
  let sandbox: Sandbox;
  let copy: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    // A daemon answers (from this checkout's dist/), as in a user's day: the commands talk to it.
    keepForFile(sandbox, await startDaemon(sandbox));
    copy = copyPackage();
  }, 120_000);

  afterAll(() => {
    if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
  });

  it('never exit non-zero or write to stderr, from before the build starts to after it ends', {
    timeout: BUILD_DEADLINE_MS + 2 * MCP_ANSWER_DEADLINE_MS,
  }, async () => {
    const registered = await register(sandbox, copy);
    const cwd = sandbox.root;
    const hookInput = (event: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        session_id: loop.sessionId,
        transcript_path: `/nowhere/${loop.sessionId}.jsonl`,
        cwd,
        hook_event_name: event,
        ...extra,
      });
    const statusInput = JSON.stringify({
      hook_event_name: 'Status',
      session_id: loop.sessionId,
      transcript_path: `/nowhere/${loop.sessionId}.jsonl`,
      cwd,
      model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
      workspace: { current_dir: cwd, project_dir: cwd },
    });
    const env = { ...sandbox.env, CLAUDE_PROJECT_DIR: cwd };
    const round = (): Promise<Outcome>[] => [
      runShell(
        'SessionStart hook',
        registered.hooks.SessionStart ?? '',
        env,
        cwd,
        hookInput('SessionStart', { source: 'resume' }),
      ),
      runShell(
        'UserPromptSubmit hook',
        registered.hooks.UserPromptSubmit ?? '',
        env,
        cwd,
        hookInput('UserPromptSubmit', { prompt: 'go on' }),
      ),
      runShell('Stop hook', registered.hooks.Stop ?? '', env, cwd, hookInput('Stop', { stop_hook_active: false })),
      runShell('status line', registered.statusLine, env, cwd, statusInput),
      runMcp(registered.mcp, env, cwd),
    ];

    const outcomes: Outcome[] = [];
    // Before the build: everything works, so what follows tests the build and not the set-up.
    outcomes.push(...(await Promise.all(round())));

    const build = spawn('npm', ['run', 'build'], { cwd: copy, env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let buildOutput = '';
    build.stdout.on('data', (chunk: Buffer) => (buildOutput += chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => (buildOutput += chunk.toString()));
    let buildCode: number | null | undefined;
    build.once('close', (code) => (buildCode = code));

    let rounds = 0;
    const deadline = Date.now() + BUILD_DEADLINE_MS;
    while (buildCode === undefined && Date.now() < deadline) {
      outcomes.push(...(await Promise.all(round())));
      rounds++;
    }
    await eventually(() => buildCode !== undefined, 'npm run build to end', 1_000);
    expect(buildCode, buildOutput).toBe(0);
    // After the build: the new tree is in place and serves them.
    outcomes.push(...(await Promise.all(round())));

    expect(existsSync(join(copy, 'dist', BUILD_MARKER)), 'the build replaced dist/').toBe(false);
    expect(rounds, 'rounds run while the build ran').toBeGreaterThan(1);
    const failures = outcomes.filter((outcome) => outcome.code !== 0 || outcome.stderr !== '');
    expect(failures.map((failure) => `${failure.what}: exit ${failure.code}: ${failure.stderr.slice(0, 300)}`)).toEqual(
      [],
    );
    const statusLines = outcomes.filter((outcome) => outcome.what === 'status line');
    expect(statusLines.every((outcome) => outcome.stdout.trim() !== '')).toBe(true);
  });
});
