/**
 * The RPC layer in-process: a real Unix socket in a temp dir, the real dispatcher, connection
 * and server, with test methods whose progress the tests observe directly.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Bus, createBus } from '../../../../daemon/bus/bus.js';
import { type CallContext, createDispatcher, handle } from '../../../../daemon/rpc/dispatch.js';
import { eventMethods } from '../../../../daemon/rpc/methods/events.js';
import { createRpcServer, type RpcServer } from '../../../../daemon/rpc/server.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import type { CompactionReadyEvent } from '../../../../shared/protocol/events.js';
import type { MethodDescriptor } from '../../../../shared/protocol/methods.js';
import { object, optional, type Schema, str } from '../../../../shared/protocol/schema.js';
import { type FakeLogger, fakeLogger } from '../../../helpers/fake-logger.js';
import { eventually } from '../../../helpers/poll.js';
import { RawSocket } from '../../../helpers/raw-socket.js';

/** How long a test waits for something it expects to happen promptly. */
const DEADLINE_MS = 5_000;
/** A drain that must outlast the test's own checks; it ends early when requests finish. */
const LONG_DRAIN_MS = 20_000;

/** Rejects with `what` if `promise` has not settled by the deadline. */
function withDeadline<T>(promise: Promise<T>, what: string, ms = DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** One running call of a test method, as its handler saw it. */
interface Call {
  method: string;
  signal: AbortSignal;
  /** Resolves when the call's signal aborts. */
  aborted: Promise<void>;
  /** Lets a `test.hold` call return `value`. */
  release(value: unknown): void;
}

/** Calls in the order their handlers started; tests take them one by one. */
class CallLog {
  private readonly started: Call[] = [];
  private taken = 0;
  private wake: (() => void) | undefined;

  add(call: Call): void {
    this.started.push(call);
    this.wake?.();
  }

  async next(): Promise<Call> {
    const index = this.taken;
    const arrived = new Promise<void>((resolve) => {
      if (this.started.length > index) resolve();
      else this.wake = resolve;
    });
    await withDeadline(arrived, 'a handler to start');
    this.taken++;
    return this.started[index] as Call;
  }
}

/** Test methods are described like protocol methods, under names the protocol does not use. */
const descriptor = <P>(name: string, params: Schema<P>): MethodDescriptor<P, unknown> => ({ name, params });

function testHandlers(calls: CallLog) {
  const track = (method: string, ctx: CallContext): { call: Call; result: Promise<unknown> } => {
    let release: (value: unknown) => void = () => {};
    const result = new Promise<unknown>((resolve) => (release = resolve));
    const aborted = new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const call = { method, signal: ctx.signal, aborted, release };
    calls.add(call);
    return { call, result };
  };
  return [
    // Runs until cancelled, then returns normally (a handler that ignores why it stopped).
    handle(descriptor('test.wait', object({})), async (_params, ctx) => {
      const { call } = track('test.wait', ctx);
      await call.aborted;
      return { stopped: true };
    }),
    // Runs until cancelled, then rejects with the abort reason (as fetch and friends do).
    handle(descriptor('test.waitReject', object({})), async (_params, ctx) => {
      const { call } = track('test.waitReject', ctx);
      await call.aborted;
      throw ctx.signal.reason;
    }),
    // Runs until the test releases it; ignores cancellation.
    handle(descriptor('test.hold', object({})), (_params, ctx) => track('test.hold', ctx).result),
    handle(descriptor('test.echo', object({ value: optional(str()) })), (params) => ({ echo: params.value ?? null })),
    handle(descriptor('test.fail', object({})), () => {
      throw new Error('secret detail from /home/someone/private');
    }),
    handle(descriptor('test.rpcFail', object({})), () => {
      throw new RpcError(ErrorCode.NotFound, 'NotFound', 'no session s-1', { sessionId: 's-1' });
    }),
  ];
}

let dir: string;
let socketPath: string;
let log: FakeLogger;
let bus: Bus;
let calls: CallLog;
let server: RpcServer;
const clients: RawSocket[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memd-rpc-'));
  socketPath = join(dir, 's.sock');
  log = fakeLogger();
  bus = createBus((error) => {
    throw error;
  });
  calls = new CallLog();
  const dispatcher = createDispatcher([...testHandlers(calls), ...eventMethods()], log);
  server = createRpcServer({
    dispatcher,
    bus,
    log,
    maxConnections: 100,
    limits: { idleMs: 600_000, frameMs: 10_000, stallMs: 30_000 },
    budget: { maxAnswerBytes: 128 * 1024 * 1024, maxHeavyRequests: 4 },
  });
  await server.listen({ kind: 'path', path: socketPath });
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server.stopAccepting();
  server.closeConnections();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(): Promise<RawSocket> {
  const client = await RawSocket.open(socketPath);
  clients.push(client);
  return client;
}

function request(id: number | string, method: string, params: unknown = {}) {
  return { jsonrpc: '2.0', id, method, params };
}

function cancelRequest(id: number | string) {
  return { jsonrpc: '2.0', method: '$/cancelRequest', params: { id } };
}

describe('cancellation', () => {
  it('aborts the work of a client that disconnects mid-call', async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.wait'));
    const call = await calls.next();
    expect(call.signal.aborted).toBe(false);
    client.close();
    await withDeadline(call.aborted, 'the handler to be aborted after the disconnect');
    expect(call.signal.aborted).toBe(true);
    await eventually(() => server.stats().connections === 0, 'the connection to be dropped');
    expect(await server.drain(DEADLINE_MS)).toBe(true);
  });

  it('aborts a request named by $/cancelRequest and answers it with Cancelled', async () => {
    const client = await connect();
    client.sendJson(request(7, 'test.wait'));
    const call = await calls.next();
    client.sendJson(cancelRequest(7));
    const response = await client.responseTo(7);
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: ErrorCode.Cancelled, message: 'the request was cancelled', data: { kind: 'Cancelled' } },
    });
    expect(call.signal.aborted).toBe(true);
  });

  it('answers Cancelled, and logs no failure, when the handler rejects on abort', async () => {
    const client = await connect();
    client.sendJson(request('r', 'test.waitReject'));
    await calls.next();
    client.sendJson(cancelRequest('r'));
    expect(await client.responseTo('r')).toMatchObject({ id: 'r', error: { code: ErrorCode.Cancelled } });
    expect(log.at('error')).toEqual([]);
  });

  it('refuses a second request under an id that is still running, and keeps tracking the first', async () => {
    const client = await connect();
    client.sendJson(request(5, 'test.wait'));
    const first = await calls.next();
    client.sendJson(request(5, 'test.echo', { value: 'again' }));
    expect(await client.responseTo(5)).toMatchObject({
      id: 5,
      error: { code: ErrorCode.InvalidRequest, data: { kind: 'DuplicateId' } },
    });
    client.close();
    await withDeadline(first.aborted, 'the first request to be cancelled on disconnect');
  });

  it('cancels only the request it names', async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.wait'));
    const first = await calls.next();
    client.sendJson(request(2, 'test.wait'));
    const second = await calls.next();
    client.sendJson(cancelRequest(2));
    expect(await client.responseTo(2)).toMatchObject({ error: { code: ErrorCode.Cancelled } });
    expect(first.signal.aborted).toBe(false);
    // A string id and a number id are different requests.
    client.sendJson(cancelRequest('1'));
    client.sendJson(request(3, 'test.echo', { value: 'after' }));
    expect(await client.next()).toEqual({ jsonrpc: '2.0', id: 3, result: { echo: 'after' } });
    expect(first.signal.aborted).toBe(false);
    expect(second.signal.aborted).toBe(true);
  });

  it('ignores a cancel for an unknown id and sends nothing for it', async () => {
    const client = await connect();
    client.sendJson(cancelRequest(99));
    client.sendJson({ jsonrpc: '2.0', method: '$/cancelRequest', params: {} });
    client.sendJson(request(1, 'test.echo', { value: 'x' }));
    // The next message is the echo: the cancels produced no response of their own.
    expect(await client.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: 'x' } });
  });

  it("does not let one client cancel another's request", async () => {
    const owner = await connect();
    const other = await connect();
    owner.sendJson(request(1, 'test.wait'));
    const call = await calls.next();
    other.sendJson(cancelRequest(1));
    other.sendJson(request(2, 'test.echo'));
    expect(await other.next()).toMatchObject({ id: 2, result: { echo: null } });
    expect(call.signal.aborted).toBe(false);
  });
});

describe('errors', () => {
  it('turns a plain Error into InternalError without its message or stack on the wire', async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.fail'));
    const response = await client.responseTo(1);
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: ErrorCode.InternalError,
        message: 'internal error; the daemon log has the details',
        data: { kind: 'InternalError' },
      },
    });
    const wire = JSON.stringify(response);
    expect(wire).not.toContain('secret');
    expect(wire).not.toContain('stack');
    expect(wire).not.toMatch(/\bat \S+:\d+/);
    // The details go to the log instead.
    const logged = log.at('error').find((line) => line.msg === 'handler failed');
    expect(logged?.fields?.error).toBeInstanceOf(Error);
    expect((logged?.fields?.error as Error).message).toContain('secret detail');
  });

  it("passes an RpcError's code, kind, message and data through, without logging it as a failure", async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.rpcFail'));
    expect(await client.responseTo(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: ErrorCode.NotFound, message: 'no session s-1', data: { kind: 'NotFound', sessionId: 's-1' } },
    });
    expect(log.at('error')).toEqual([]);
  });

  it('answers InvalidParams naming the field for params that do not fit the schema', async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.echo', { value: 'x', extra: 1 }));
    expect(await client.responseTo(1)).toMatchObject({
      error: { code: ErrorCode.InvalidParams, data: { kind: 'InvalidParams', field: 'params.extra' } },
    });
    client.sendJson(request(2, 'test.echo', { value: 5 }));
    expect(await client.responseTo(2)).toMatchObject({
      error: { code: ErrorCode.InvalidParams, data: { field: 'params.value' } },
    });
  });

  it('treats absent params as an empty object', async () => {
    const client = await connect();
    client.sendJson({ jsonrpc: '2.0', id: 1, method: 'test.echo' });
    expect(await client.responseTo(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: null } });
  });

  it('answers MethodNotFound for unknown methods, and says when the protocol has it but this daemon does not', async () => {
    const client = await connect();
    client.sendJson(request(1, 'no.such'));
    expect(await client.responseTo(1)).toMatchObject({
      error: {
        code: ErrorCode.MethodNotFound,
        message: 'unknown method "no.such"',
        data: { kind: 'MethodNotFound', method: 'no.such' },
      },
    });
    client.sendJson(request(2, 'sessions.list'));
    const response = await client.responseTo(2);
    expect(response).toMatchObject({ error: { code: ErrorCode.MethodNotFound } });
    expect((response.error as { message: string }).message).toContain('not served by this daemon version');
  });
});

describe('shutdown', () => {
  it('answers ShuttingDown to new requests once it stops accepting, and drains what runs', async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.hold'));
    const held = await calls.next();
    await server.stopAccepting();

    client.sendJson(request(2, 'test.echo', { value: 'late' }));
    expect(await client.responseTo(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: ErrorCode.ShuttingDown,
        message: 'memd is shutting down; retry after it restarts',
        data: { kind: 'ShuttingDown' },
      },
    });
    // New connections are refused outright.
    await expect(RawSocket.open(socketPath)).rejects.toThrow();

    // The held request is still in flight: a drain with no time left reports it.
    expect(await server.drain(0)).toBe(false);
    let drained: boolean | undefined;
    const draining = server.drain(LONG_DRAIN_MS).then((result) => (drained = result));
    // A full round trip later the drain is still waiting.
    client.sendJson(request(3, 'test.echo'));
    await client.responseTo(3);
    expect(drained).toBeUndefined();

    held.release({ done: true });
    expect(await withDeadline(draining, 'the drain to finish')).toBe(true);
    // The request that was running when shutdown began gets its real answer.
    expect(await client.responseTo(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { done: true } });
  });

  it('closeConnections cancels what still runs and closes every connection', async () => {
    const client = await connect();
    client.sendJson(request(1, 'test.wait'));
    const call = await calls.next();
    await server.stopAccepting();
    server.closeConnections();
    await withDeadline(call.aborted, 'the call to be cancelled');
    await client.waitClosed(DEADLINE_MS);
  });
});

describe('events', () => {
  async function subscribe(client: RawSocket, topics: string[]): Promise<unknown> {
    return (await client.request('events.subscribe', { topics })).result;
  }

  it('sends each event only to connections subscribed to its topic', async () => {
    const updates = await connect();
    const memory = await connect();
    const nobody = await connect();
    expect(await subscribe(updates, ['compaction.ready'])).toEqual({ topics: ['compaction.ready'] });
    expect(await subscribe(memory, ['memory.extracted'])).toEqual({ topics: ['memory.extracted'] });
    expect(server.stats().subscriptions).toBe(2);

    bus.publish('compaction.ready', ready('a'));
    bus.publish('memory.extracted', { sessionId: 'b' });
    bus.publish('compaction.ready', ready('c'));

    // Each client's messages arrive in order, so what comes first proves what was skipped.
    expect(await updates.next()).toEqual({ jsonrpc: '2.0', method: 'compaction.ready', params: ready('a') });
    expect(await updates.next()).toEqual({ jsonrpc: '2.0', method: 'compaction.ready', params: ready('c') });
    expect(await memory.next()).toEqual({ jsonrpc: '2.0', method: 'memory.extracted', params: { sessionId: 'b' } });
    nobody.sendJson(request(1, 'test.echo'));
    expect(await nobody.next()).toMatchObject({ id: 1 });
  });

  it('stops sending a topic after unsubscribe, keeping the others', async () => {
    const client = await connect();
    await subscribe(client, ['memory.extracted', 'compaction.ready']);
    expect((await client.request('events.unsubscribe', { topics: ['memory.extracted'] })).result).toEqual({
      topics: ['compaction.ready'],
    });
    bus.publish('memory.extracted', { n: 1 });
    bus.publish('compaction.ready', ready('n2'));
    expect(await client.next()).toEqual({ jsonrpc: '2.0', method: 'compaction.ready', params: ready('n2') });
  });

  it('refuses unknown topics', async () => {
    const client = await connect();
    const response = await client.request('events.subscribe', { topics: ['session.created'] });
    expect(response).toMatchObject({ error: { code: ErrorCode.InvalidParams, data: { field: 'params.topics[0]' } } });
    expect(server.stats().subscriptions).toBe(0);
  });

  it('forgets the subscriptions of a connection that closes', async () => {
    const client = await connect();
    await subscribe(client, ['ingest.failed']);
    expect(server.stats().subscriptions).toBe(1);
    client.close();
    await eventually(() => server.stats().connections === 0, 'the connection to close');
    expect(server.stats().subscriptions).toBe(0);
    expect(() =>
      bus.publish('ingest.failed', {
        path: '/p/s.jsonl',
        sessionId: 's',
        offset: 0,
        length: 1,
        reason: 'invalid-json',
      }),
    ).not.toThrow();
  });
});

describe('stats', () => {
  it('counts connections, requests served and protocol errors', async () => {
    const client = await connect();
    await client.request('test.echo');
    await client.request('test.echo');
    client.sendJson({ jsonrpc: '2.0', id: 9 });
    expect(await client.responseTo(9)).toMatchObject({ error: { code: ErrorCode.InvalidRequest } });
    expect(server.stats()).toMatchObject({ connections: 1, subscriptions: 0, requestsServed: 2, protocolErrors: 1 });
  });
});

function ready(sessionId: string): CompactionReadyEvent {
  return {
    sessionId,
    method: 'summary',
    preTokens: 2,
    postTokens: 1,
    keptFromUuid: null,
    lost: { userMessages: 0, filePaths: 0, identifiers: 0, errors: 0 },
  };
}
