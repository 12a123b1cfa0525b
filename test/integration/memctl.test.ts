import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMAND_USAGE } from '../../client/memctl/help.js';
import { createOutput } from '../../client/memctl/output.js';
import { isProcessAlive } from '../../daemon/lifecycle/instance-lock.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { RawSocket } from '../helpers/raw-socket.js';
import {
  DAEMON_MAIN,
  eventually,
  MEMCTL_MAIN,
  makeSandbox,
  runMemctl,
  type Sandbox,
  spawnTracked,
  startDaemon,
} from '../helpers/sandbox.js';

/** Exit codes of DESIGN.md §4. */
const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_NO_DAEMON_OR_USAGE = 2;

const ESC = '\x1b[';

async function rawCall(sandbox: Sandbox, method: string, params: object = {}): Promise<Record<string, unknown>> {
  const socket = await RawSocket.open(sandbox.socketPath);
  try {
    return await socket.request(method, params);
  } finally {
    socket.close();
  }
}

/** The lock file's first line is the owner's pid. */
function lockPid(sandbox: Sandbox): number {
  return Number.parseInt(readFileSync(sandbox.lockPath, 'utf8').split('\n')[0] ?? '', 10);
}

/** The type of every leaf, so that two results with different counters still compare. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shape(entry)]));
  }
  return value === null ? 'null' : typeof value;
}

/**
 * systemctl --user falls back to the session bus named here, which on a developer's desktop is the
 * real user manager; the sandbox must not reach it.
 */
const NO_SESSION_BUS = { DBUS_SESSION_BUS_ADDRESS: undefined };

/** `systemctl --user` as memctl would run it in this sandbox: the first line of why it fails, or undefined if it works. */
function systemctlUserFailure(sandbox: Sandbox): string | undefined {
  const env = { ...sandbox.env, ...NO_SESSION_BUS };
  const run = spawnSync('systemctl', ['--user', 'daemon-reload'], { env, encoding: 'utf8', timeout: 15_000 });
  if (run.error) return run.error.message;
  if (run.status === 0) return undefined;
  return run.stderr.trim().split('\n')[0];
}

/** Splits `install-service --dry-run` output into `{ path: unit text }`. */
function parseDryRun(stdout: string): Record<string, string> {
  const units: Record<string, string> = {};
  const headers = [...stdout.matchAll(/^# (\/\S+)$/gm)];
  headers.forEach((header, index) => {
    const start = (header.index ?? 0) + header[0].length + 1;
    const end = headers[index + 1]?.index ?? stdout.length;
    // out.out() adds one newline after each unit's own trailing newline.
    units[header[1] ?? ''] = stdout.slice(start, end).replace(/\n$/, '');
  });
  return units;
}

describe('memctl status', () => {
  it('prints version, pid, uptime and paths for humans', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const result = await runMemctl(sandbox, ['status']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    const [headline] = result.stdout.split('\n');
    expect(headline).toContain(`memd ${MEMD_VERSION} running`);
    expect(headline).toContain(`pid ${daemon.pid}`);
    expect(headline).toMatch(/up \d+s/);
    expect(result.stdout).toMatch(new RegExp(`^  socket +${sandbox.socketPath}$`, 'm'));
    expect(result.stdout).toMatch(new RegExp(`^  state +${sandbox.stateDir}$`, 'm'));
    expect(result.stdout).toContain(sandbox.dbPath);
    expect(result.stdout).not.toContain(ESC);
  });

  it('--json prints the daemon.status result unchanged', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const result = await runMemctl(sandbox, ['status', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    // One line of JSON, nothing else.
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    const direct = (await rawCall(sandbox, 'daemon.status')).result as Record<string, unknown>;
    expect(shape(printed)).toEqual(shape(direct));
    // Everything that does not count or measure is identical.
    for (const key of ['pid', 'version', 'protocol', 'startedAt', 'socketActivated', 'paths', 'database']) {
      expect(printed[key], key).toEqual(direct[key]);
    }
    expect(printed.pid).toBe(lockPid(sandbox));
  });

  it('does not crash when its reader goes away early (memctl status | head -1)', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const memctl = spawnTracked(process.execPath, [MEMCTL_MAIN, 'status'], sandbox.env);
    // Closed before memctl has written anything, so every write it makes meets EPIPE.
    memctl.child.stdout?.destroy();
    expect(await memctl.exited).toEqual({ code: EXIT_OK, signal: null });
    expect(memctl.output()).toBe('');
  });

  it('--no-autostart with no daemon exits 2 and says to run memctl start', async () => {
    const sandbox = makeSandbox();
    const started = Date.now();
    const result = await runMemctl(sandbox, ['--no-autostart', 'status']);
    expect(result.code).toBe(EXIT_NO_DAEMON_OR_USAGE);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^memctl: /);
    expect(result.stderr).toContain(sandbox.socketPath);
    expect(result.stderr).toContain('memctl start');
    expect(Date.now() - started).toBeLessThan(3_000 + 2_000);
    // Nothing was started behind our back.
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });
});

describe('memctl start and stop', () => {
  it('start starts one daemon, status then shows it, stop stops it, stop again says not running', async () => {
    const sandbox = makeSandbox();
    const started = await runMemctl(sandbox, ['start']);
    expect(started.stderr).toBe('');
    expect(started.code).toBe(EXIT_OK);
    const pid = lockPid(sandbox);
    expect(started.stdout).toContain(`started via detached (pid ${pid})`);
    expect(started.stdout).toContain(sandbox.socketPath);

    const status = await runMemctl(sandbox, ['status', '--json']);
    expect(status.code).toBe(EXIT_OK);
    expect((JSON.parse(status.stdout) as { pid: number }).pid).toBe(pid);

    const again = await runMemctl(sandbox, ['start']);
    expect(again.code).toBe(EXIT_OK);
    expect(again.stdout).toContain(`already running (pid ${pid})`);

    const stopped = await runMemctl(sandbox, ['stop']);
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(EXIT_OK);
    expect(stopped.stdout).toContain(`memd stopped (pid ${pid})`);
    // stop returns once the socket no longer answers; the daemon removes it on its way out.
    await eventually(() => !existsSync(sandbox.socketPath), 'the socket file to go');
    await eventually(() => !isProcessAlive(pid), `pid ${pid} to exit`);

    const stoppedAgain = await runMemctl(sandbox, ['stop']);
    expect(stoppedAgain.code).toBe(EXIT_OK);
    expect(stoppedAgain.stdout).toContain('not running');
    // stop never autostarts a daemon just to stop it.
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });
});

describe('memctl call', () => {
  it('prints the result of daemon.version as JSON', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const result = await runMemctl(sandbox, ['call', 'daemon.version']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    expect(JSON.parse(result.stdout)).toEqual((await rawCall(sandbox, 'daemon.version')).result);
  });

  it('exits 1 with the error kind when the daemon answers MethodNotFound', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const result = await runMemctl(sandbox, ['call', 'nope']);
    expect(result.code).toBe(EXIT_ERROR);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^memctl: memd answered MethodNotFound \(-32601\)/);
    // It says what to do next.
    expect(result.stderr).toContain('memctl call daemon.version');
  });

  it('exits 1 with InvalidParams for an unknown field', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const result = await runMemctl(sandbox, ['call', 'daemon.status', '{"x":1}']);
    expect(result.code).toBe(EXIT_ERROR);
    expect(result.stderr).toMatch(/^memctl: memd answered InvalidParams \(-32602\)/);
    expect(result.stderr).toContain('"x"');
    expect(result.stderr).toContain('docs/protocol.md');
  });

  it.each([
    ['an array', ['call', 'daemon.status', '[1]'], 'params must be one JSON object'],
    ['bad JSON', ['call', 'daemon.status', '{x'], 'params are not valid JSON'],
    ['no method', ['call'], 'call needs a METHOD'],
    ['two JSON arguments', ['call', 'daemon.status', '{}', '{}'], 'one JSON object'],
  ])('treats %s as a usage error (exit 2) before reaching for a daemon', async (_what, args, message) => {
    const sandbox = makeSandbox();
    const result = await runMemctl(sandbox, args);
    expect(result.code).toBe(EXIT_NO_DAEMON_OR_USAGE);
    expect(result.stderr).toMatch(/^memctl: /);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('memctl --help');
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });
});

describe('memctl usage', () => {
  it('rejects an unknown command with exit 2', async () => {
    const sandbox = makeSandbox();
    const result = await runMemctl(sandbox, ['frobnicate']);
    expect(result.code).toBe(EXIT_NO_DAEMON_OR_USAGE);
    expect(result.stderr).toMatch(/^memctl: unknown command "frobnicate"/);
    expect(result.stderr).toContain('memctl --help');
  });

  it('prints the main usage to stderr with exit 2 when given no command, and to stdout with --help', async () => {
    const sandbox = makeSandbox();
    const bare = await runMemctl(sandbox, []);
    expect(bare.code).toBe(EXIT_NO_DAEMON_OR_USAGE);
    expect(bare.stderr).toMatch(/^usage: memctl /);
    const help = await runMemctl(sandbox, ['--help']);
    expect(help.code).toBe(EXIT_OK);
    expect(help.stdout).toMatch(/^usage: memctl /);
    for (const command of Object.keys(COMMAND_USAGE)) expect(help.stdout, command).toContain(`  ${command} `);
  });

  it.each(Object.keys(COMMAND_USAGE))('%s --help prints its usage and exits 0 without a daemon', async (command) => {
    const sandbox = makeSandbox();
    const result = await runMemctl(sandbox, [command, '--help']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    expect(result.stdout).toMatch(new RegExp(`^usage: memctl ${command}\\b`));
    expect(result.stdout.trimEnd()).toBe(COMMAND_USAGE[command]);
    // Asking for help never starts the daemon.
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });
});

describe('memctl doctor', () => {
  it('passes every check against a running daemon', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const result = await runMemctl(sandbox, ['doctor']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    const lines = result.stdout.trimEnd().split('\n');
    for (const label of ['node', 'state dir', 'socket dir', 'socket', 'database', 'config', 'projects']) {
      expect(lines, label).toContainEqual(expect.stringMatching(new RegExp(`^ok +${label} `)));
    }
    // Units are optional until install-service; not installed is a skip, not a failure.
    expect(lines).toContainEqual(expect.stringMatching(/^-- +units +not installed/));
    expect(result.stdout).not.toContain('FAIL');

    const json = await runMemctl(sandbox, ['doctor', '--json']);
    expect(json.code).toBe(EXIT_OK);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true });
  });

  it('fails with exit 1 and a chmod 700 hint when the state dir is open to others', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    chmodSync(sandbox.stateDir, 0o755);
    const result = await runMemctl(sandbox, ['doctor']);
    expect(result.code).toBe(EXIT_ERROR);
    expect(result.stdout).toMatch(new RegExp(`^FAIL state dir +${sandbox.stateDir} has mode 0755$`, 'm'));
    expect(result.stdout).toContain(`→ chmod 700 ${sandbox.stateDir}`);
    expect(result.stdout).toMatch(/^ok +socket dir /m);
  });

  it('fails the socket check with exit 1 and says to start memd when none runs', async () => {
    const sandbox = makeSandbox();
    const result = await runMemctl(sandbox, ['doctor']);
    expect(result.code).toBe(EXIT_ERROR);
    expect(result.stdout).toMatch(/^FAIL socket /m);
    expect(result.stdout).toContain('→ nothing will start it by itself: run memctl start');
    // doctor looks; it never starts the daemon.
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });
});

describe('memctl install-service', () => {
  it('--dry-run prints both units with the absolute node and memd paths', async () => {
    const sandbox = makeSandbox();
    const result = await runMemctl(sandbox, ['install-service', '--dry-run']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    const unitDir = join(sandbox.configHome, 'systemd', 'user');
    const units = parseDryRun(result.stdout);
    expect(Object.keys(units).sort()).toEqual([join(unitDir, 'memd.service'), join(unitDir, 'memd.socket')]);
    expect(units[join(unitDir, 'memd.service')]).toMatch(
      new RegExp(`^ExecStart=${process.execPath} ${DAEMON_MAIN}$`, 'm'),
    );
    expect(units[join(unitDir, 'memd.socket')]).toMatch(/^ListenStream=%t\/memd\/memd\.sock$/m);
    expect(result.stdout).not.toMatch(/@NODE@|@MEMD_MAIN@/);
    // A dry run writes nothing.
    expect(existsSync(unitDir)).toBe(false);
  });

  it('writes both units, prints the manual steps where systemctl --user does not work, and doctor then finds them', async () => {
    const sandbox = makeSandbox();
    // In this container (and in any sandbox: its XDG_RUNTIME_DIR has no user bus) systemctl --user
    // cannot reach a user manager; memctl must still install the files and explain the rest.
    const systemctlFailure = systemctlUserFailure(sandbox);
    expect(systemctlFailure, 'systemctl --user unexpectedly works in the sandbox').toBeDefined();
    await startDaemon(sandbox);

    const dryRun = parseDryRun((await runMemctl(sandbox, ['install-service', '--dry-run'])).stdout);
    const result = await runMemctl(sandbox, ['install-service'], NO_SESSION_BUS);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT_OK);
    expect(result.stdout).toContain(`systemctl --user does not work here (${systemctlFailure})`);
    expect(result.stdout).toContain('systemctl --user daemon-reload');
    expect(result.stdout).toContain('systemctl --user enable --now memd.socket');

    const unitDir = join(sandbox.configHome, 'systemd', 'user');
    const expectedMode = 0o644 & ~process.umask();
    for (const name of ['memd.socket', 'memd.service']) {
      const path = join(unitDir, name);
      expect(result.stdout).toContain(`wrote ${path}`);
      expect(statSync(path).mode & 0o777, name).toBe(expectedMode);
      expect(readFileSync(path, 'utf8'), name).toBe(dryRun[path]);
    }
    expect(readFileSync(join(unitDir, 'memd.service'), 'utf8')).toContain(
      `ExecStart=${process.execPath} ${DAEMON_MAIN}\n`,
    );
    // No temp file is left beside the units.
    expect(spawnSync('ls', ['-A', unitDir], { encoding: 'utf8' }).stdout.trim().split('\n').sort()).toEqual([
      'memd.service',
      'memd.socket',
    ]);
    // Without systemd the running daemon is left alone.
    expect((await rawCall(sandbox, 'daemon.status')).result).toMatchObject({ pid: lockPid(sandbox) });

    const doctor = await runMemctl(sandbox, ['doctor']);
    expect(doctor.code).toBe(EXIT_OK);
    expect(doctor.stdout).toMatch(new RegExp(`^ok +units +installed in ${unitDir}$`, 'm'));
  });

  it('rejects an unknown option with exit 2', async () => {
    const sandbox = makeSandbox();
    const result = await runMemctl(sandbox, ['install-service', '--force']);
    expect(result.code).toBe(EXIT_NO_DAEMON_OR_USAGE);
    expect(result.stderr).toMatch(/^memctl: install-service does not take --force/);
  });
});

describe('memctl colour', () => {
  const original = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  afterEach(() => {
    if (original) Object.defineProperty(process.stdout, 'isTTY', original);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  });
  const fakeTty = (isTTY: boolean) =>
    Object.defineProperty(process.stdout, 'isTTY', { value: isTTY, configurable: true });

  it('paints on a TTY, and not with NO_COLOR, TERM=dumb or a pipe', () => {
    fakeTty(true);
    expect(createOutput({ TERM: 'xterm' }).green('ok')).toBe(`${ESC}32mok${ESC}0m`);
    // no-color.org: an empty NO_COLOR does not count.
    expect(createOutput({ TERM: 'xterm', NO_COLOR: '' }).red('x')).toContain(ESC);
    for (const env of [{ TERM: 'xterm', NO_COLOR: '1' }, { TERM: 'xterm', NO_COLOR: '0' }, { TERM: 'dumb' }]) {
      const out = createOutput(env);
      for (const paint of [out.bold, out.green, out.red, out.yellow, out.dim])
        expect(paint('x'), JSON.stringify(env)).toBe('x');
    }
    fakeTty(false);
    expect(createOutput({ TERM: 'xterm' }).green('ok')).toBe('ok');
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.runIf(hasScript)(
    'memctl on a real terminal (util-linux script) paints, and with NO_COLOR=1 does not',
    async () => {
      const sandbox = makeSandbox();
      await startDaemon(sandbox);
      const onTerminal = (noColor: Record<string, string>) =>
        spawnSync('script', ['-qec', `${process.execPath} ${MEMCTL_MAIN} doctor`, '/dev/null'], {
          env: { ...sandbox.env, NO_COLOR: undefined, TERM: 'xterm', ...noColor },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 20_000,
        });
      const painted = onTerminal({});
      expect(painted.status).toBe(EXIT_OK);
      expect(painted.stdout).toContain(`${ESC}32mok  ${ESC}0m`);
      const plain = onTerminal({ NO_COLOR: '1' });
      expect(plain.status).toBe(EXIT_OK);
      expect(plain.stdout).toMatch(/^ok +node /m);
      expect(plain.stdout).not.toContain(ESC);
    },
  );
});
