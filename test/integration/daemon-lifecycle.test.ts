import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RawSocket } from '../helpers/raw-socket.js';
import { eventually, makeSandbox, runMemctl, spawnDaemon, startDaemon } from '../helpers/sandbox.js';

describe('memd lifecycle', () => {
  it('answers the version handshake with its protocol and capabilities', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const socket = await RawSocket.open(sandbox.socketPath);
    const response = await socket.request('daemon.version', {});
    socket.close();
    expect(response.result).toMatchObject({ name: 'memd', protocol: 1 });
    const capabilities = (response.result as { capabilities: string[] }).capabilities;
    expect(capabilities).toEqual(expect.arrayContaining(['daemon.status', 'events.subscribe', 'events']));
  });

  it('creates its dirs 0700 and its socket 0600', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    expect(statSync(sandbox.stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(sandbox.runtimeDir).mode & 0o777).toBe(0o700);
    expect(statSync(sandbox.socketPath).mode & 0o777).toBe(0o600);
  });

  it('refuses a second daemon, naming the running pid', async () => {
    const sandbox = makeSandbox();
    const first = await startDaemon(sandbox);
    const second = spawnDaemon(sandbox);
    const { code } = await second.exited;
    expect(code).not.toBe(0);
    expect(second.output()).toContain(`pid ${first.pid}`);
    // The first one is untouched.
    const socket = await RawSocket.open(sandbox.socketPath);
    expect((await socket.request('daemon.status', {})).result).toMatchObject({ pid: first.pid });
    socket.close();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'shuts down gracefully on %s: socket and lock removed, exit 0',
    async (signal) => {
      const sandbox = makeSandbox();
      const daemon = await startDaemon(sandbox);
      daemon.child.kill(signal);
      expect((await daemon.exited).code).toBe(0);
      expect(existsSync(sandbox.socketPath)).toBe(false);
      expect(existsSync(sandbox.lockPath)).toBe(false);
      expect(daemon.output()).toContain(`"reason":"${signal}"`);
    },
  );

  it('shuts down on daemon.shutdown after answering, and tells subscribers first', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const watcher = await RawSocket.open(sandbox.socketPath);
    expect((await watcher.request('events.subscribe', { topics: ['daemon.stopping'] })).result).toEqual({
      topics: ['daemon.stopping'],
    });
    const caller = await RawSocket.open(sandbox.socketPath);
    expect((await caller.request('daemon.shutdown', { reason: 'test' })).result).toEqual({
      ok: true,
      deadlineMs: 10_000,
    });
    expect(await watcher.next()).toEqual({ jsonrpc: '2.0', method: 'daemon.stopping', params: { reason: 'test' } });
    expect((await daemon.exited).code).toBe(0);
    await watcher.waitClosed();
    expect(existsSync(sandbox.socketPath)).toBe(false);
  });

  it('after kill -9, memctl status autostarts a new daemon that clears the stale socket', async () => {
    const sandbox = makeSandbox();
    const old = await startDaemon(sandbox);
    old.child.kill('SIGKILL');
    await old.exited;
    expect(existsSync(sandbox.socketPath)).toBe(true);
    expect(readFileSync(sandbox.lockPath, 'utf8')).toContain(String(old.pid));

    const result = await runMemctl(sandbox, ['status', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout) as { pid: number; paths: { log: string } };
    expect(status.pid).not.toBe(old.pid);
    expect(readFileSync(sandbox.lockPath, 'utf8')).toContain(String(status.pid));
    // The detached daemon logs to its file, where it reports taking over the stale socket.
    expect(readFileSync(status.paths.log, 'utf8')).toContain('removed a stale socket');
  });

  it('stops when its socket file is removed, so that a new daemon can take over', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox, ['--foreground'], { MEMD_SOCKET_CHECK_MS: '50' });
    rmSync(sandbox.socketPath);
    expect((await daemon.exited).code).toBe(0);
    expect(daemon.output()).toContain('the socket file was removed');
    expect(existsSync(sandbox.lockPath)).toBe(false);
  });

  it("stops when its socket file is replaced, leaving the new owner's socket in place", async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox, ['--foreground'], { MEMD_SOCKET_CHECK_MS: '50' });
    // The new owner binds beside the socket and renames its file over it, so the daemon's check never
    // sees the path missing (rm, then listen, left a gap the 50 ms check could fall into).
    const usurper = createServer();
    const beside = `${sandbox.socketPath}.new`;
    await new Promise<void>((resolve) => usurper.listen(beside, resolve));
    renameSync(beside, sandbox.socketPath);
    try {
      expect((await daemon.exited).code).toBe(0);
      expect(daemon.output()).toContain('the socket file was replaced');
      expect(existsSync(sandbox.socketPath)).toBe(true);
    } finally {
      usurper.close();
    }
  });

  it('reports config from env over config.json over defaults with --print-config', async () => {
    const sandbox = makeSandbox();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(`${sandbox.configHome}/memd`, { recursive: true });
    writeFileSync(`${sandbox.configHome}/memd/config.json`, JSON.stringify({ logLevel: 'debug', model: 'from-file' }));
    const printing = spawnDaemon(sandbox, ['--print-config'], { MEMD_MODEL: 'from-env' });
    expect((await printing.exited).code).toBe(0);
    const printed = JSON.parse(printing.output()) as { config: { key: string; value: unknown; source: string }[] };
    const byKey = Object.fromEntries(printed.config.map((entry) => [entry.key, entry]));
    expect(byKey.model).toMatchObject({ value: 'from-env', source: 'env' });
    expect(byKey.logLevel).toMatchObject({ value: 'debug', source: 'file' });
    expect(byKey.summarizer).toMatchObject({ value: 'offline', source: 'default' });
  });

  it('refuses to start with a bad config value and names it', async () => {
    const sandbox = makeSandbox();
    const daemon = spawnDaemon(sandbox, ['--foreground'], { MEMD_LOG_LEVEL: 'loud' });
    expect((await daemon.exited).code).toBe(2);
    expect(daemon.output()).toContain('MEMD_LOG_LEVEL="loud" is invalid');
  });

  it('logs JSON lines with journald priorities under systemd, and to memd.log otherwise', async () => {
    const journal = makeSandbox();
    const underSystemd = await startDaemon(journal, [], { JOURNAL_STREAM: '8:12345' });
    await eventually(() => underSystemd.output().includes('"msg":"ready"'), 'the ready line');
    expect(underSystemd.output()).toMatch(/^<6>\{"time":/m);

    const detached = makeSandbox();
    const quiet = await startDaemon(detached, []);
    expect(quiet.output()).toBe('');
    expect(readFileSync(`${detached.stateDir}/memd.log`, 'utf8')).toContain('"msg":"ready"');
  });
});
