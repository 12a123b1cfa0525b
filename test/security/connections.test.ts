/**
 * Issue 13 item 17: a half line held open, idle connections and too many connections are bounded
 * (shortened limits here), and the other clients are served throughout.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/client.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { makeSandbox, startDaemon } from '../helpers/sandbox.js';

const LIMITS = { MEMD_FRAME_TIMEOUT_MS: '300', MEMD_IDLE_TIMEOUT_MS: '600', MEMD_MAX_CONNECTIONS: '3' };

describe('connection limits', () => {
  it('closes a half line, closes idle connections but not subscribers, refuses past the cap; others are served', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox, undefined, LIMITS);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const half = await RawSocket.open(sandbox.socketPath);
      half.send('{"jsonrpc":"2.0","id":1,"method":"daemon.ver');
      const idle = await RawSocket.open(sandbox.socketPath);
      const subscriber = await RawSocket.open(sandbox.socketPath);
      expect((await subscriber.request('events.subscribe', { topics: ['session.updated'] })).result).toBeDefined();

      // Full: one more connection is told why and closed.
      const extra = await RawSocket.open(sandbox.socketPath);
      const refusal = (await extra.next()) as { error: { code: number; data: { kind: string } } };
      expect(refusal.error).toMatchObject({ code: -32004, data: { kind: 'TooManyConnections' } });
      await extra.waitClosed();

      const parseError = (await half.next()) as { error: { code: number; message: string } };
      expect(parseError.error.code).toBe(-32700);
      expect(parseError.error.message).toContain('unfinished');
      await half.waitClosed();
      await idle.waitClosed();
      // The typed client reconnects after its idle close; the subscriber stays.
      expect((await client.daemonVersion()).name).toBe('memd');
      // Opened before the idle one, which was closed: a subscriber is never idle.
      expect(subscriber.closed).toBe(false);
      expect((await subscriber.request('daemon.version')).result).toMatchObject({ name: 'memd' });
      expect((await client.daemonStatus()).pid).toBeGreaterThan(0);
      subscriber.close();
    } finally {
      client.close();
    }
  });
});
