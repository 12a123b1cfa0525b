/**
 * The systemd side: the shipped units pass `systemd-analyze verify`, and memd serves a socket it is
 * handed through socket activation (sd_listen_fds) and leaves that socket to whoever made it.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderUnits, UNIT_NAMES } from '../../client/memctl/units.js';
import type { DaemonStatus } from '../../shared/protocol/daemon.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { DAEMON_MAIN, makeSandbox, type Sandbox, STARTUP_DEADLINE_MS, spawnTracked } from '../helpers/sandbox.js';

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

const HAS_ANALYZE = onPath('systemd-analyze');
const HAS_SOCKET_ACTIVATE = onPath('systemd-socket-activate');

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync('/tmp/memd-u-');
  scratch.push(dir);
  return dir;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: STARTUP_DEADLINE_MS }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `Key=value` lines of one section of a unit file. */
function directives(unit: string, section: string): string[] {
  const lines = unit.split('\n').map((line) => line.trim());
  const start = lines.indexOf(`[${section}]`);
  if (start === -1) return [];
  const end = lines.findIndex((line, index) => index > start && line.startsWith('['));
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => line !== '' && !line.startsWith('#'));
}

describe('systemd units', () => {
  it('fill in the node and memd paths and keep the socket private', async () => {
    const units = renderUnits('/opt/node 20/bin/node', DAEMON_MAIN);
    expect(units['memd.service']).not.toMatch(/@[A-Z_]+@/);
    expect(units['memd.socket']).not.toMatch(/@[A-Z_]+@/);
    // systemd splits ExecStart on whitespace: a path with a space must arrive quoted.
    expect(directives(units['memd.service'], 'Service')).toContain(`ExecStart="/opt/node 20/bin/node" ${DAEMON_MAIN}`);

    const socket = directives(units['memd.socket'], 'Socket');
    expect(socket).toEqual(
      expect.arrayContaining(['ListenStream=%t/memd/memd.sock', 'SocketMode=0600', 'DirectoryMode=0700']),
    );
    const service = directives(units['memd.service'], 'Service');
    expect(service).toEqual(expect.arrayContaining(['Restart=on-failure']));
    // The service is started by its socket, so it must come after it.
    expect(directives(units['memd.service'], 'Unit')).toEqual(
      expect.arrayContaining(['Requires=memd.socket', 'After=memd.socket']),
    );
  });

  it.skipIf(!HAS_ANALYZE)('pass systemd-analyze --user verify without a complaint', async () => {
    const dir = tempDir();
    const runtime = join(dir, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    const units = renderUnits(process.execPath, DAEMON_MAIN);
    for (const name of UNIT_NAMES) writeFileSync(join(dir, name), units[name]);

    const result = await run('systemd-analyze', ['--user', 'verify', ...UNIT_NAMES.map((name) => join(dir, name))], {
      ...process.env,
      XDG_RUNTIME_DIR: runtime,
      HOME: dir,
    });
    // verify exits 0 on mere warnings (an unknown key, a bad value it ignores), so its output counts too.
    const complaints = result.stderr
      .split('\n')
      .filter((line) => line.includes('memd.socket') || line.includes('memd.service'));
    expect(complaints).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
  });

  it.skipIf(!HAS_ANALYZE)(
    'make systemd-analyze complain about a broken unit (so the check above can fail)',
    async () => {
      const dir = tempDir();
      const runtime = join(dir, 'run');
      mkdirSync(runtime, { mode: 0o700 });
      const units = renderUnits(process.execPath, DAEMON_MAIN);
      writeFileSync(join(dir, 'memd.socket'), units['memd.socket']);
      writeFileSync(
        join(dir, 'memd.service'),
        units['memd.service'].replace('Restart=on-failure', 'Restart=sometimes'),
      );
      const result = await run(
        'systemd-analyze',
        ['--user', 'verify', join(dir, 'memd.socket'), join(dir, 'memd.service')],
        {
          ...process.env,
          XDG_RUNTIME_DIR: runtime,
          HOME: dir,
        },
      );
      expect(result.stderr).toMatch(/memd\.service.*restart/i);
    },
  );
});

/** systemd-socket-activate passes only PATH, TERM, USER and HOME on; the rest goes with -E. */
function setenvArgs(sandbox: Sandbox): string[] {
  const forMemd = (key: string) => /^(XDG_|MEMD_|CLAUDE_)/.test(key) || key === 'HOME' || key === 'NO_COLOR';
  const wanted = Object.entries(sandbox.env).filter(([key]) => forMemd(key));
  return wanted.flatMap(([key, value]) => ['-E', `${key}=${value ?? ''}`]);
}

/** Connects and asks until the activated daemon answers (the first connection is what starts it). */
async function connectWhenServed(socketPath: string, deadlineMs = STARTUP_DEADLINE_MS): Promise<RawSocket> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const socket = await RawSocket.open(socketPath);
      const response = await socket.request('daemon.version', {}, Math.max(1, deadline - Date.now()));
      if (response.result) return socket;
      socket.close();
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`nothing answered on ${socketPath} within ${deadlineMs} ms: ${String(lastError)}`);
}

describe('socket activation', () => {
  it.skipIf(!HAS_SOCKET_ACTIVATE)('serves the socket it is handed and leaves it in place when it stops', async () => {
    const sandbox = makeSandbox();
    // systemd-socket-activate binds the socket itself; like the socket unit's DirectoryMode, the dir is ours to make.
    mkdirSync(sandbox.runtimeDir, { mode: 0o700 });
    const activator = spawnTracked(
      'systemd-socket-activate',
      ['-l', sandbox.socketPath, ...setenvArgs(sandbox), process.execPath, DAEMON_MAIN, '--foreground'],
      sandbox.env,
    );

    const socket = await connectWhenServed(sandbox.socketPath);
    const status = (await socket.request('daemon.status', {})).result as DaemonStatus;
    expect(status.socketActivated).toBe(true);
    // It execs memd in place, so LISTEN_PID named memd's own pid: that is why memd took the socket.
    expect(status.pid).toBe(activator.pid);
    expect(status.paths.socket).toBe(sandbox.socketPath);
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd', protocol: 1 });

    expect((await socket.request('daemon.shutdown', { reason: 'test' })).result).toEqual({
      ok: true,
      deadlineMs: 10_000,
    });
    expect((await activator.exited).code).toBe(0);
    await socket.waitClosed();

    // The socket belongs to whoever bound it (here systemd-socket-activate, under systemd the
    // socket unit, which removes it itself): memd must not unlink it.
    expect(lstatSync(sandbox.socketPath).isSocket()).toBe(true);
    expect(activator.output()).not.toContain('removed a stale socket');
    expect(activator.output()).toContain('"socketActivated":true');
    // Its own files it does clean up.
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });
});
