import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ClientError,
  createClient,
  type DaemonStatus,
  DEFAULT_TIMEOUT_MS,
  ErrorCode,
  RpcError,
} from '../../client/index.js';
import { createClient as createBuiltClient } from '../../dist/client/index.js';
import { LineSplitter } from '../../shared/protocol/framing.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { RawSocket } from '../helpers/raw-socket.js';
import {
  eventually,
  makeSandbox,
  ROOT,
  type RunResult,
  runNode,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

/** How long a child that should exit by itself gets before the test calls it stuck. */
const CHILD_EXIT_DEADLINE_MS = 10_000;

async function daemonStatus(sandbox: Sandbox): Promise<DaemonStatus> {
  const socket = await RawSocket.open(sandbox.socketPath);
  try {
    return (await socket.request('daemon.status', {})).result as DaemonStatus;
  } finally {
    socket.close();
  }
}

/** Resolves with what `promise` rejects with; fails if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a result');
}

interface FakeDaemon {
  server: Server;
  socketPath: string;
  /** Every line any client sent, parsed. */
  received: unknown[];
  /** Connections currently open on the server side. */
  open: Set<Socket>;
  close(): Promise<void>;
}

/** A Unix socket server that hands each request to `answer`; returning undefined never answers. */
async function fakeDaemon(
  sandbox: Sandbox,
  answer: (request: { id: number; method: string }) => unknown,
): Promise<FakeDaemon> {
  const socketPath = join(sandbox.root, 'fake.sock');
  const received: unknown[] = [];
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => {});
    const splitter = new LineSplitter();
    socket.on('data', (chunk: Buffer) => {
      for (const line of splitter.push(chunk).lines) {
        const request = JSON.parse(line) as { id: number; method: string };
        received.push(request);
        const result = answer(request);
        if (result !== undefined) socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    server,
    socketPath,
    received,
    open,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Runs a module script with the built client in a child process; `source` may use `memd` (the module). */
function runClientScript(sandbox: Sandbox, source: string): Promise<RunResult> {
  const clientUrl = pathToFileURL(join(ROOT, 'dist/client/index.js')).href;
  const script = `import * as memd from ${JSON.stringify(clientUrl)};\n${source}`;
  const run = runNode(['--input-type=module', '-e', script], sandbox.env);
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the client script did not exit within ${CHILD_EXIT_DEADLINE_MS} ms`)),
      CHILD_EXIT_DEADLINE_MS,
    );
  });
  return Promise.race([run, stuck]).finally(() => clearTimeout(timer));
}

describe('client library', () => {
  it('calls methods with types and checks the version on connect', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const status = await client.daemonStatus();
      expect(status.pid).toBe(daemon.pid);
      expect(status.version).toBe(MEMD_VERSION);
      expect(status.paths.socket).toBe(sandbox.socketPath);
      expect(client.daemon).toMatchObject({ name: 'memd', version: MEMD_VERSION, protocol: 1 });
      expect(client.started).toBeUndefined();
      // The first message on the connection is the handshake.
      const version = await client.daemonVersion();
      expect(version.capabilities).toContain('daemon.status');
    } finally {
      client.close();
    }
    expect(DEFAULT_TIMEOUT_MS).toBe(3_000);
  });

  it('turns an error answer into an RpcError with its code and kind', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const error = await rejection(client.callRaw('daemon.status', { x: 1 }));
      expect(error).toBeInstanceOf(RpcError);
      expect(error).toMatchObject({ code: ErrorCode.InvalidParams, kind: 'InvalidParams' });
      // The connection survives an error answer.
      expect((await client.daemonStatus()).protocol).toBe(1);
    } finally {
      client.close();
    }
  });

  it('starts a detached daemon when none answers', async () => {
    const sandbox = makeSandbox();
    // Autostart runs bin/memd.cjs, which runs the build in dist/: this uses the built client, as
    // a user's memctl is.
    const client = createBuiltClient({ env: sandbox.env });
    try {
      const status = await client.daemonStatus();
      expect(client.started).toBe('detached');
      expect(status.socketActivated).toBe(false);
      expect(status.pid).not.toBe(process.pid);
      expect((await daemonStatus(sandbox)).pid).toBe(status.pid);
    } finally {
      client.close();
    }
  });

  it('with autostart off and no daemon, fails fast with NoDaemon', async () => {
    const sandbox = makeSandbox();
    const client = createClient({ env: sandbox.env, autostart: false });
    const started = Date.now();
    const error = await rejection(client.daemonStatus());
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ kind: 'NoDaemon' });
    expect((error as Error).message).toContain('memctl start');
    expect(elapsed).toBeLessThan(1_000);
    client.close();
  });

  it('with autostart off and a stale socket (ECONNREFUSED), retries once and fails with NoDaemon', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    const client = createClient({ env: sandbox.env, autostart: false });
    const error = await rejection(client.daemonStatus());
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ kind: 'NoDaemon' });
    expect((error as ClientError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    client.close();
  });

  it('gives up on a daemon that accepts but never answers at the deadline, and hangs up', async () => {
    const sandbox = makeSandbox();
    const silent = await fakeDaemon(sandbox, () => undefined);
    const timeoutMs = 300;
    const client = createClient({ env: { ...sandbox.env, MEMD_SOCKET: silent.socketPath }, timeoutMs });
    try {
      const started = Date.now();
      const error = await rejection(client.daemonStatus());
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(ClientError);
      expect(error).toMatchObject({ kind: 'Timeout' });
      expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
      expect(elapsed).toBeLessThan(2_000);
      expect(silent.received).toEqual([expect.objectContaining({ method: 'daemon.version' })]);
      // A client that gave up does not keep the connection (one leaked socket per timed-out call otherwise).
      await eventually(() => silent.open.size === 0, 'the client to hang up');
    } finally {
      client.close();
      await silent.close();
    }
  });

  it('refuses a daemon that speaks another protocol with VersionMismatch (-32003)', async () => {
    const sandbox = makeSandbox();
    const future = await fakeDaemon(sandbox, (request) =>
      request.method === 'daemon.version'
        ? { name: 'memd', version: '9.0.0', protocol: 2, capabilities: [] }
        : { never: true },
    );
    const client = createClient({ env: { ...sandbox.env, MEMD_SOCKET: future.socketPath } });
    try {
      const error = await rejection(client.daemonStatus());
      expect(error).toBeInstanceOf(RpcError);
      expect(error).toMatchObject({ code: ErrorCode.VersionMismatch, kind: 'VersionMismatch' });
      expect((error as Error).message).toContain('memd 9.0.0 speaks protocol 2');
      expect((error as Error).message).toContain('memctl stop && memctl start');
      // Only the handshake went out; daemon.status was never sent to a daemon that would misread it.
      expect(future.received.map((message) => (message as { method: string }).method)).toEqual(['daemon.version']);
      await eventually(() => future.open.size === 0, 'the client to hang up');
      expect(client.daemon).toBeUndefined();
    } finally {
      client.close();
      await future.close();
    }
  });

  it('delivers notifications to subscribers', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const watcher = createClient({ env: sandbox.env, autostart: false });
    const stopper = createClient({ env: sandbox.env, autostart: false });
    try {
      const events: unknown[] = [];
      await watcher.on('daemon.stopping', (payload, topic) => events.push({ topic, payload }));
      expect((await daemonStatus(sandbox)).counts.subscriptions).toBe(1);
      expect(await stopper.daemonShutdown({ reason: 'client test' })).toEqual({ ok: true, deadlineMs: 10_000 });
      await eventually(() => events.length > 0, 'daemon.stopping');
      expect(events).toEqual([{ topic: 'daemon.stopping', payload: { reason: 'client test' } }]);
      expect((await daemon.exited).code).toBe(0);
    } finally {
      watcher.close();
      stopper.close();
    }
  });

  it('unsubscribes: the daemon counts no subscription after the last listener goes', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const off = await client.on('daemon.stopping', () => {});
      expect((await daemonStatus(sandbox)).counts.subscriptions).toBe(1);
      await off();
      expect((await daemonStatus(sandbox)).counts.subscriptions).toBe(0);
    } finally {
      client.close();
    }
  });

  it('after a failed subscribe, a later one subscribes for real', async () => {
    const sandbox = makeSandbox();
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const error = await rejection(client.on('daemon.stopping', () => {}));
      expect(error).toMatchObject({ kind: 'NoDaemon' });
      await startDaemon(sandbox);
      const events: unknown[] = [];
      await client.on('daemon.stopping', (payload) => events.push(payload));
      expect((await daemonStatus(sandbox)).counts.subscriptions).toBe(1);
      const stopper = createClient({ env: sandbox.env, autostart: false });
      await stopper.daemonShutdown({ reason: 'after retry' });
      stopper.close();
      await eventually(() => events.length > 0, 'daemon.stopping');
      expect(events).toEqual([{ reason: 'after retry' }]);
    } finally {
      client.close();
    }
  });

  it('reconnects and re-subscribes by itself after the daemon restarts', async () => {
    const sandbox = makeSandbox();
    const first = await startDaemon(sandbox);
    // autostart off: the test, not the client, decides when the next daemon comes up.
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const events: { reason: string }[] = [];
      await client.on('daemon.stopping', (payload) => events.push(payload));
      const stopper = createClient({ env: sandbox.env, autostart: false });
      await stopper.daemonShutdown({ reason: 'first' });
      stopper.close();
      await eventually(() => events.length === 1, 'the first daemon.stopping');
      expect((await first.exited).code).toBe(0);

      const second = await startDaemon(sandbox);
      await eventually(
        async () => (await daemonStatus(sandbox)).counts.subscriptions >= 1,
        'the client to re-subscribe',
      );
      expect(client.daemon).toMatchObject({ protocol: 1 });

      const stopper2 = createClient({ env: sandbox.env, autostart: false });
      await stopper2.daemonShutdown({ reason: 'second' });
      stopper2.close();
      await eventually(() => events.length === 2, 'the second daemon.stopping');
      expect(events).toEqual([{ reason: 'first' }, { reason: 'second' }]);
      expect((await second.exited).code).toBe(0);
    } finally {
      client.close();
    }
  });

  it('waits for a daemon after losing it, but never starts one itself (memctl stop must stick)', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const watcher = createClient({ env: sandbox.env });
    try {
      await watcher.on('daemon.stopping', () => {});
      const stopper = createClient({ env: sandbox.env, autostart: false });
      await stopper.daemonShutdown({ reason: 'stop for good' });
      stopper.close();
      // Gone for good (its socket and lock removed), however slowly a loaded machine lets it exit;
      // then the watcher keeps trying without ever starting another.
      await daemon.exited;
      const attempts = watcher.reconnectAttempts;
      await eventually(
        () => watcher.reconnectAttempts >= attempts + 3,
        'three reconnect attempts after the daemon exited',
      );
      expect(existsSync(sandbox.socketPath)).toBe(false);
      expect(existsSync(sandbox.lockPath)).toBe(false);
    } finally {
      watcher.close();
    }
  });

  it('shares one subscription between concurrent listeners of a topic', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const seen: string[] = [];
      await Promise.all([
        client.on('daemon.stopping', () => seen.push('a')),
        client.on('daemon.stopping', () => seen.push('b')),
      ]);
      expect((await daemonStatus(sandbox)).counts.subscriptions).toBe(1);
      const stopper = createClient({ env: sandbox.env, autostart: false });
      await stopper.daemonShutdown({});
      stopper.close();
      await eventually(() => seen.length === 2, 'both listeners');
      expect(seen.sort()).toEqual(['a', 'b']);
    } finally {
      client.close();
    }
  });

  it('fails calls after close, at once', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    await client.daemonStatus();
    client.close();
    const error = await rejection(client.daemonStatus());
    expect(error).toMatchObject({ kind: 'Closed' });
  });
});

describe('client library in a host process', () => {
  it('never keeps the host alive while idle, even with an open connection', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const result = await runClientScript(
      sandbox,
      `const client = memd.createClient({ autostart: false });
       const status = await client.daemonStatus();
       console.log(JSON.stringify({ pid: status.pid }));
       // No client.close(): the process must still exit once nothing is pending.`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ pid: daemon.pid });
  });

  it('never keeps the host alive while subscribed without keepAlive', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const result = await runClientScript(
      sandbox,
      `const client = memd.createClient({ autostart: false });
       await client.on('daemon.stopping', () => {});
       console.log('subscribed');`,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('subscribed\n');
  });

  it('keeps the host alive while a call waits, until its answer', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    // Nothing but the pending call holds the event loop between the write and the answer.
    const result = await runClientScript(
      sandbox,
      `const client = memd.createClient({ autostart: false });
       client.daemonStatus().then((status) => console.log(typeof status.pid));`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('number\n');
  });
});
