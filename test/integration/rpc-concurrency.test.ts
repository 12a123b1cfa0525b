/**
 * Many clients at once against one real daemon: every call answered, each answer on the
 * connection and under the id that asked for it, and the daemon's counts follow the clients.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { DaemonStatus } from '../../shared/protocol/daemon.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import { EVENT_TOPICS, type EventTopic } from '../../shared/protocol/events.js';
import { createClient } from '../helpers/client.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { eventually, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CLIENTS = 100;
/** Past MAX_IN_FLIGHT_PER_CONNECTION (256), so the daemon has to pause and resume reading. */
const PIPELINED_REQUESTS = 1_000;
/** Generous: 100 clients on a two-core CI box share one daemon with the test runner. */
const CALL_TIMEOUT_MS = 20_000;

type Message = Record<string, unknown>;

async function status(observer: RawSocket): Promise<DaemonStatus> {
  const response = await observer.request('daemon.status', {});
  expect(response.error).toBeUndefined();
  return response.result as DaemonStatus;
}

/** An observer connection, once the startup probes have gone: counts then start from 1. */
async function observe(sandbox: Sandbox): Promise<RawSocket> {
  const observer = await RawSocket.open(sandbox.socketPath);
  await eventually(async () => (await status(observer)).counts.connections === 1, 'the startup probes to disconnect');
  return observer;
}

/** A topic set that differs from one client to the next, so an answer shows whose it is. */
function topicsFor(client: number): EventTopic[] {
  return EVENT_TOPICS.filter((_, index) => (client >> index) % 2 === 1 || index === client % EVENT_TOPICS.length);
}

describe('memd under concurrent clients', () => {
  it(`answers ${CLIENTS} raw clients calling at once, each under its own ids, and counts them`, async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const observer = await observe(sandbox);

    const sockets = await Promise.all(Array.from({ length: CLIENTS }, () => RawSocket.open(sandbox.socketPath)));
    await Promise.all(
      sockets.map(async (socket, client) => {
        // Everything goes out before any answer is read: the calls of one client overlap too.
        const ids = {
          version: `c${client}-v`,
          status: `c${client}-s`,
          subscribe: `c${client}-sub`,
          unknown: client * 10 + 1,
          bad: client * 10 + 2,
        };
        socket.sendJson({ jsonrpc: '2.0', id: ids.version, method: 'daemon.version' });
        socket.sendJson({ jsonrpc: '2.0', id: ids.status, method: 'daemon.status', params: {} });
        socket.sendJson({
          jsonrpc: '2.0',
          id: ids.subscribe,
          method: 'events.subscribe',
          params: { topics: topicsFor(client) },
        });
        socket.sendJson({ jsonrpc: '2.0', id: ids.unknown, method: `test.unknown${client}` });
        socket.sendJson({ jsonrpc: '2.0', id: ids.bad, method: 'daemon.status', params: { [`field${client}`]: 1 } });

        expect((await socket.responseTo(ids.version, CALL_TIMEOUT_MS)).result).toMatchObject({
          name: 'memd',
          protocol: 1,
        });
        expect((await socket.responseTo(ids.status, CALL_TIMEOUT_MS)).result).toMatchObject({ pid: daemon.pid });
        expect((await socket.responseTo(ids.subscribe, CALL_TIMEOUT_MS)).result).toEqual({ topics: topicsFor(client) });
        // The daemon echoes what was asked in these errors, so a crossed answer cannot pass.
        expect((await socket.responseTo(ids.unknown, CALL_TIMEOUT_MS)).error).toMatchObject({
          code: ErrorCode.MethodNotFound,
          data: { method: `test.unknown${client}` },
        });
        expect((await socket.responseTo(ids.bad, CALL_TIMEOUT_MS)).error).toMatchObject({
          code: ErrorCode.InvalidParams,
          data: { field: `params.field${client}` },
        });
        expect(await socket.next(0).catch(() => 'nothing else')).toBe('nothing else');
      }),
    );

    const open = await status(observer);
    expect(open.counts.connections).toBe(CLIENTS + 1);
    const subscribed = sockets.reduce((sum, _, client) => sum + topicsFor(client).length, 0);
    expect(open.counts.subscriptions).toBe(subscribed);

    for (const socket of sockets) socket.close();
    await eventually(async () => (await status(observer)).counts.connections === 1, 'every client to be gone');
    expect((await status(observer)).counts.subscriptions).toBe(0);
    observer.close();
  });

  it(`answers ${CLIENTS} typed clients making several calls each at once`, async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    const observer = await observe(sandbox);

    const clients: Client[] = Array.from({ length: CLIENTS }, () =>
      createClient({ env: sandbox.env, autostart: false, timeoutMs: CALL_TIMEOUT_MS }),
    );
    try {
      await Promise.all(
        clients.map(async (client, index) => {
          const [version, current, subscription, refused] = await Promise.all([
            client.daemonVersion(),
            client.daemonStatus(),
            client.eventsSubscribe({ topics: topicsFor(index) }),
            client.callRaw('daemon.status', { [`field${index}`]: 1 }).then(
              () => undefined,
              (error: unknown) => error,
            ),
          ]);
          expect(version).toMatchObject({ name: 'memd', protocol: 1 });
          expect(current.pid).toBe(daemon.pid);
          expect(subscription.topics).toEqual(topicsFor(index));
          expect(refused).toMatchObject({ code: ErrorCode.InvalidParams, data: { field: `params.field${index}` } });
        }),
      );

      // Each typed client keeps one connection for all its calls.
      const open = await status(observer);
      expect(open.counts.connections).toBe(CLIENTS + 1);
      expect(open.counts.subscriptions).toBe(clients.reduce((sum, _, index) => sum + topicsFor(index).length, 0));
    } finally {
      for (const client of clients) client.close();
    }
    await eventually(async () => (await status(observer)).counts.connections === 1, 'every typed client to be gone');
    expect((await status(observer)).counts.subscriptions).toBe(0);
    observer.close();
  });

  it(`answers ${PIPELINED_REQUESTS} requests pipelined on one connection in a single write`, async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const socket = await RawSocket.open(sandbox.socketPath);
    const lines = Array.from({ length: PIPELINED_REQUESTS }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'daemon.version' }),
    );
    socket.send(`${lines.join('\n')}\n`);
    const seen = new Set<unknown>();
    for (let i = 0; i < PIPELINED_REQUESTS; i++) {
      const message = (await socket.next(CALL_TIMEOUT_MS)) as Message;
      expect(message.result).toMatchObject({ name: 'memd' });
      seen.add(message.id);
    }
    expect(seen.size).toBe(PIPELINED_REQUESTS);
    // Reading resumed after the in-flight cap: a later request still gets through.
    const after = (await socket.request('daemon.status', {})).result as DaemonStatus;
    expect(after.counts.requestsServed).toBeGreaterThanOrEqual(PIPELINED_REQUESTS);
    socket.close();
  });

  it('subscribes and unsubscribes per connection, answering the topic set after each call', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const observer = await observe(sandbox);
    const socket = await RawSocket.open(sandbox.socketPath);

    expect(
      (await socket.request('events.subscribe', { topics: ['session.updated', 'memory.extracted'] })).result,
    ).toEqual({
      topics: ['session.updated', 'memory.extracted'],
    });
    // Subscribing twice to a topic counts it once.
    expect((await socket.request('events.subscribe', { topics: ['session.updated', 'ingest.failed'] })).result).toEqual(
      {
        topics: ['session.updated', 'memory.extracted', 'ingest.failed'],
      },
    );
    expect((await status(observer)).counts.subscriptions).toBe(3);

    expect((await socket.request('events.unsubscribe', { topics: ['session.updated'] })).result).toEqual({
      topics: ['memory.extracted', 'ingest.failed'],
    });
    // A topic this connection never had leaves the set as it was.
    expect((await socket.request('events.unsubscribe', { topics: ['compaction.ready'] })).result).toEqual({
      topics: ['memory.extracted', 'ingest.failed'],
    });
    expect((await status(observer)).counts.subscriptions).toBe(2);

    // Another connection's subscriptions are its own.
    const other = await RawSocket.open(sandbox.socketPath);
    expect((await other.request('events.subscribe', { topics: ['session.updated'] })).result).toEqual({
      topics: ['session.updated'],
    });
    expect((await status(observer)).counts.subscriptions).toBe(3);
    other.close();
    await eventually(
      async () => (await status(observer)).counts.subscriptions === 2,
      'a closed connection to drop its subscriptions',
    );

    socket.close();
    observer.close();
  });

  it.each([
    ['an unknown topic', { topics: ['session.updated', 'no.such.topic'] }, 'params.topics[1]'],
    ['no topics', { topics: [] }, 'params.topics'],
    ['topics that are not an array', { topics: 'session.updated' }, 'params.topics'],
    ['no params', {}, 'params.topics'],
  ])('refuses to subscribe to %s with -32602 and changes nothing', async (_name, params, field) => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const observer = await observe(sandbox);
    const socket = await RawSocket.open(sandbox.socketPath);
    const first = await socket.request('events.subscribe', { topics: ['compaction.ready'] });
    expect(first.result).toEqual({ topics: ['compaction.ready'] });

    const refused = await socket.request('events.subscribe', params);
    expect(refused.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { kind: 'InvalidParams', field } });
    const unrefused = await socket.request('events.unsubscribe', params);
    expect(unrefused.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { kind: 'InvalidParams', field } });

    expect((await status(observer)).counts.subscriptions).toBe(1);
    socket.close();
    observer.close();
  });
});
