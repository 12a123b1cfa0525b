/**
 * Claude Code brings memd up (issue 29 item 3): the SessionStart hook, replayed from Claude Code's
 * recorded input with no daemon, exits 0 with nothing on stderr and leaves a daemon that answers;
 * it starts none when autostart is off, and two at once leave one. The status line and the turn
 * hooks never start one. The installers say who will start a memd that is down, and doctor checks
 * the MCP registration.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookLogPath } from '../../client/memctl/hook-log.js';
import { FIXTURES } from '../helpers/ingest.js';
import {
  DAEMON_MAIN,
  eventually,
  MEMCTL_MAIN,
  makeSandbox,
  runMemctl,
  type Sandbox,
  STARTUP_DEADLINE_MS,
  startDaemon,
  waitReady,
} from '../helpers/sandbox.js';

const HOOKS = join(FIXTURES, 'compactions', 'hooks');

/** A recorded SessionStart's stdin (00 is `startup`, 04 `resume`), its cwd moved into the sandbox. */
function sessionStartInput(file: string, cwd: string): string {
  const recorded = JSON.parse(readFileSync(join(HOOKS, file), 'utf8')) as { stdin: Record<string, unknown> };
  return JSON.stringify({ ...recorded.stdin, cwd, transcript_path: join(cwd, 'absent.jsonl') });
}

/** The pids of memd daemons running for this sandbox (its runtime dir is in their environment). */
function daemonsOf(sandbox: Sandbox): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!cmdline.includes(DAEMON_MAIN)) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(`XDG_RUNTIME_DIR=${join(sandbox.root, 'run')}`)) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

/** A project dir for the hook's cwd and for `--project` installs (not the test's own working copy). */
function projectOf(sandbox: Sandbox): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = join(sandbox.root, 'project');
  mkdirSync(cwd, { recursive: true });
  return { cwd, env: { CLAUDE_PROJECT_DIR: cwd } };
}

describe('the SessionStart hook with no daemon', () => {
  it('starts memd in the background: exit 0, nothing on stdout or stderr, and a daemon answers afterwards', async () => {
    const sandbox = makeSandbox();
    const { cwd, env } = projectOf(sandbox);
    const run = await runMemctl(
      sandbox,
      ['hook', 'session-start'],
      env,
      sessionStartInput('00-SessionStart.json', cwd),
    );
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    await waitReady(sandbox);
    expect(daemonsOf(sandbox)).toHaveLength(1);
  });

  it('on resume, falls back to the handoff file at once and still starts memd', async () => {
    const sandbox = makeSandbox();
    const { cwd, env } = projectOf(sandbox);
    const run = await runMemctl(
      sandbox,
      ['hook', 'session-start'],
      env,
      sessionStartInput('04-SessionStart.json', cwd),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('');
    expect(readFileSync(hookLogPath({ ...sandbox.env, ...env }), 'utf8')).toContain(
      'memd was not running (started now, in the background)',
    );
    await waitReady(sandbox);
  });

  it('two sessions starting at once leave one daemon (its instance lock)', async () => {
    const sandbox = makeSandbox();
    const { cwd, env } = projectOf(sandbox);
    const input = sessionStartInput('00-SessionStart.json', cwd);
    const runs = await Promise.all([
      runMemctl(sandbox, ['hook', 'session-start'], env, input),
      runMemctl(sandbox, ['hook', 'session-start'], env, input),
    ]);
    for (const run of runs) expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    await waitReady(sandbox);
    await eventually(
      () => daemonsOf(sandbox).length === 1,
      'the daemon started second to give way',
      STARTUP_DEADLINE_MS,
    );
    expect(Number.parseInt(readFileSync(sandbox.lockPath, 'utf8'), 10)).toBe(daemonsOf(sandbox)[0]);
  });

  it.each([
    ['MEMD_NO_AUTOSTART=1', ['hook', 'session-start'], { MEMD_NO_AUTOSTART: '1' }],
    ['--no-autostart', ['--no-autostart', 'hook', 'session-start'], {}],
  ])('starts nothing with %s', async (_name, args, extraEnv) => {
    const sandbox = makeSandbox();
    const { cwd, env } = projectOf(sandbox);
    const run = await runMemctl(sandbox, args, { ...env, ...extraEnv }, sessionStartInput('00-SessionStart.json', cwd));
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    // spawn() returns with the process made: had the hook started one, it would be listed now.
    expect(daemonsOf(sandbox)).toEqual([]);
  });

  it('finds a running daemon and starts no second one', async () => {
    const sandbox = makeSandbox();
    const { cwd, env } = projectOf(sandbox);
    const daemon = await startDaemon(sandbox);
    expect(
      await runMemctl(sandbox, ['hook', 'session-start'], env, sessionStartInput('00-SessionStart.json', cwd)),
    ).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(daemonsOf(sandbox)).toEqual([daemon.pid]);
  });
});

describe('the commands Claude Code runs on every message and prompt', () => {
  it('never start a daemon: the status line and the turn hooks', async () => {
    const sandbox = makeSandbox();
    const { cwd } = projectOf(sandbox);
    const input = sessionStartInput('00-SessionStart.json', cwd);
    for (const args of [['statusline'], ['hook', 'turn-start'], ['hook', 'turn-end']]) {
      expect(await runMemctl(sandbox, args, {}, input)).toMatchObject({ code: 0, stderr: '' });
    }
    expect(daemonsOf(sandbox)).toEqual([]);
  });
});

describe('the installers with memd down', () => {
  it('say memd is not running and who will start it: the SessionStart hook once installed, else memctl start', async () => {
    const sandbox = makeSandbox();
    const { env } = projectOf(sandbox);
    const statusLine = await runMemctl(sandbox, ['install-statusline'], env);
    expect(statusLine).toMatchObject({ code: 0, stderr: '' });
    expect(statusLine.stdout).toContain('memd is not running; nothing will start it by itself: run memctl start');
    const hooks = await runMemctl(sandbox, ['install-hooks'], env);
    expect(hooks).toMatchObject({ code: 0, stderr: '' });
    expect(hooks.stdout).toContain(
      "memd is not running; Claude Code's SessionStart hook starts it when the next session starts; memctl start starts it now.",
    );
    const mcp = await runMemctl(sandbox, ['install-mcp'], env);
    expect(mcp.stdout).toContain(
      "memd is not running; Claude Code's SessionStart hook starts it when the next session starts",
    );
    // Running an installer again is how a user checks: it says so then too.
    expect((await runMemctl(sandbox, ['install-statusline'], env)).stdout).toContain('SessionStart hook starts it');
    expect(daemonsOf(sandbox)).toEqual([]);
  });

  it('name the systemd unit when it is installed, and say nothing when memd runs', async () => {
    const sandbox = makeSandbox();
    const { env } = projectOf(sandbox);
    const unitDir = join(sandbox.configHome, 'systemd', 'user');
    mkdirSync(unitDir, { recursive: true });
    writeFileSync(join(unitDir, 'memd.socket'), '[Socket]\n');
    expect((await runMemctl(sandbox, ['install-mcp'], env)).stdout).toContain(
      'its systemd socket unit is installed: systemctl --user enable --now memd.socket',
    );
    await startDaemon(sandbox);
    expect((await runMemctl(sandbox, ['install-mcp'], env)).stdout).not.toContain('not running');
  });
});

describe('memctl doctor', () => {
  it('checks the MCP registration in the user config and the project .mcp.json, and says who starts a memd that is down', async () => {
    const sandbox = makeSandbox();
    const { cwd, env } = projectOf(sandbox);
    const before = await runMemctl(sandbox, ['--no-autostart', 'doctor'], env);
    expect(before.stdout).toMatch(/-- +mcp +memd is not registered in /);
    expect(before.stdout).toMatch(/→ nothing will start it by itself: run memctl start/);
    expect(await runMemctl(sandbox, ['install-hooks'], env)).toMatchObject({ code: 0 });
    expect(await runMemctl(sandbox, ['install-mcp'], env)).toMatchObject({ code: 0 });
    const after = await runMemctl(sandbox, ['--no-autostart', 'doctor'], env);
    expect(after.stdout).toMatch(/ok +mcp +memctl mcp registered in \S+\.claude\.json \(user\)/);
    expect(after.stdout).toMatch(/FAIL socket .*not running/);
    expect(after.stdout).toMatch(/→ Claude Code's SessionStart hook starts it when the next session starts/);
    // Another checkout's memctl, since removed, in the project's .mcp.json.
    const gone = join(sandbox.root, 'old-checkout', 'dist', 'client', 'memctl', 'main.js');
    writeFileSync(
      join(cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: { memd: { type: 'stdio', command: process.execPath, args: [gone, 'mcp'], env: {} } },
      }),
    );
    const stale = await runMemctl(sandbox, ['--no-autostart', 'doctor', '--json'], env);
    const checks = (JSON.parse(stale.stdout) as { checks: { label: string; ok: unknown; detail: string }[] }).checks;
    expect(checks.find((check) => check.label === 'mcp')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(`${gone} does not exist`),
    });
    expect(MEMCTL_MAIN).not.toBe(gone);
  });
});
