import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type OwnSocket,
  ownSocket,
  removeStaleSocket,
  SocketPathError,
} from '../../../../daemon/lifecycle/socket-file.js';

/** Short, so a test waits a few ticks for the watcher; the test timeout bounds the wait. */
const WATCH_INTERVAL_MS = 5;

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-sock-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('removeStaleSocket', () => {
  it('reports false when there is nothing to remove', () => {
    expect(removeStaleSocket(join(dir, 'none.sock'))).toBe(false);
  });

  it('removes a socket file', async () => {
    const path = join(dir, 's.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(removeStaleSocket(path)).toBe(true);
      expect(existsSync(path)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses to remove anything that is not a socket', () => {
    const path = join(dir, 'file');
    writeFileSync(path, 'precious');
    expect(() => removeStaleSocket(path)).toThrow(SocketPathError);
    expect(existsSync(path)).toBe(true);
  });
});

describe('ownSocket', () => {
  const servers: Server[] = [];

  afterEach(async () => {
    // libuv unlinks the path when a listener closes; the temp dir goes anyway.
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** Binds a listener at `path` and keeps it open, as a running daemon does. */
  async function bind(path: string): Promise<Server> {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return server;
  }

  function waitGone(owned: OwnSocket): Promise<string> {
    return new Promise((resolve) => owned.watch(WATCH_INTERVAL_MS, resolve));
  }

  it('removes the socket it bound', async () => {
    const path = join(dir, 'own.sock');
    await bind(path);
    ownSocket(path).remove();
    expect(existsSync(path)).toBe(false);
  });

  it('leaves a socket that replaced its own', async () => {
    const path = join(dir, 'own.sock');
    await bind(path);
    const owned = ownSocket(path);
    rmSync(path);
    await bind(path);
    owned.remove();
    expect(existsSync(path)).toBe(true);
  });

  it('removes nothing when there was no socket to own', async () => {
    const path = join(dir, 'own.sock');
    const owned = ownSocket(path);
    await bind(path);
    owned.remove();
    expect(existsSync(path)).toBe(true);
  });

  it('reports that its socket was removed', async () => {
    const path = join(dir, 'own.sock');
    await bind(path);
    const owned = ownSocket(path);
    const gone = waitGone(owned);
    rmSync(path);
    expect(await gone).toBe('the socket file was removed');
  });

  it('reports that its socket was replaced, and then leaves the new one', async () => {
    const path = join(dir, 'own.sock');
    await bind(path);
    const owned = ownSocket(path);
    rmSync(path);
    await bind(path);
    expect(await waitGone(owned)).toBe('the socket file was replaced');
    owned.remove();
    expect(existsSync(path)).toBe(true);
  });

  it('reports once, however long the socket stays gone', async () => {
    const path = join(dir, 'own.sock');
    await bind(path);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const owned = ownSocket(path);
      const reports: string[] = [];
      owned.watch(WATCH_INTERVAL_MS, (why) => reports.push(why));
      vi.advanceTimersByTime(WATCH_INTERVAL_MS * 3);
      expect(reports).toEqual([]);
      rmSync(path);
      vi.advanceTimersByTime(WATCH_INTERVAL_MS * 20);
      expect(reports).toEqual(['the socket file was removed']);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
