/**
 * One real daemon takes every kind of malformed input DESIGN.md §3 names, in order, while a
 * bystander connection stays open the whole time and must keep getting correct answers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DaemonStatus, VersionInfo } from '../../shared/protocol/daemon.js';
import { MAX_BATCH_SIZE } from '../../shared/protocol/envelope.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import { MAX_FRAME_BYTES } from '../../shared/protocol/framing.js';
import { Methods } from '../../shared/protocol/methods.js';
import { RawSocket } from '../helpers/raw-socket.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const MIB = 1024 * 1024;
/** Just past the frame cap, so the daemon must give up on it rather than buffer it. */
const OVERSIZED_FRAME_BYTES = 17 * MIB;
/** Loose on purpose: RSS is noisy, but buffering a few oversized frames whole would pass it. */
const MAX_RSS_GROWTH_BYTES = OVERSIZED_FRAME_BYTES * 4;
/** Far deeper than any real message, and deep enough to overflow a recursive walker's stack. */
const HOSTILE_DEPTH = 100_000;
/** A batch well past MAX_BATCH_SIZE. */
const HUGE_BATCH = 1_000;
/** Bounds the drain loop: no abuse here provokes more than a handful of messages. */
const MAX_MESSAGES_BEFORE_CLOSE = 100;

type Message = Record<string, unknown>;
interface ErrorShape {
  code: number;
  message: string;
  data?: { kind?: string; [key: string]: unknown };
}

function errorOf(message: unknown): ErrorShape {
  const error = (message as { error?: ErrorShape }).error;
  if (!error) throw new Error(`expected an error response, got ${JSON.stringify(message)}`);
  return error;
}

/** Reads every message until the daemon closes the connection (and fails if it never does). */
async function drainUntilClosed(socket: RawSocket): Promise<unknown[]> {
  const messages: unknown[] = [];
  for (let i = 0; i < MAX_MESSAGES_BEFORE_CLOSE; i++) {
    try {
      messages.push(await socket.next());
    } catch (error) {
      if (socket.closed) return messages;
      throw error;
    }
  }
  throw new Error(`more than ${MAX_MESSAGES_BEFORE_CLOSE} messages and still open`);
}

/** The messages already received, without waiting (next(0) fails at once when there are none). */
async function alreadyReceived(socket: RawSocket): Promise<unknown[]> {
  const messages: unknown[] = [];
  for (let i = 0; i < MAX_MESSAGES_BEFORE_CLOSE; i++) {
    try {
      messages.push(await socket.next(0));
    } catch {
      return messages;
    }
  }
  return messages;
}

function nested(open: string, leaf: string, close: string, depth: number): string {
  return `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
}

/** Peak resident set of a process in bytes, from /proc (Linux), or undefined elsewhere. */
function peakRssBytes(pid: number): number | undefined {
  const path = `/proc/${pid}/status`;
  if (!existsSync(path)) return undefined;
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(path, 'utf8'));
  return match ? Number(match[1]) * 1024 : undefined;
}

describe.sequential('memd under malformed input', () => {
  let sandbox: Sandbox;
  let daemon: DaemonProcess;
  let bystander: RawSocket;
  let daemonExited = false;
  let initialProtocolErrors = 0;
  const abusers: RawSocket[] = [];

  async function status(): Promise<DaemonStatus> {
    const response = await bystander.request('daemon.status', {});
    expect(response.error).toBeUndefined();
    return response.result as DaemonStatus;
  }

  /** The bystander still gets a correct answer and every abusive connection is gone. */
  async function expectBystanderServed(): Promise<void> {
    const current = await status();
    expect(current.pid).toBe(daemon.pid);
    const version = await bystander.request('daemon.version', {});
    expect(version.result).toMatchObject({ name: 'memd', protocol: 1 });
    for (const socket of abusers.splice(0)) socket.close();
    await eventually(async () => (await status()).counts.connections === 1, 'only the bystander to stay connected');
  }

  async function abuser(): Promise<RawSocket> {
    const socket = await RawSocket.open(sandbox.socketPath);
    abusers.push(socket);
    return socket;
  }

  beforeAll(async () => {
    sandbox = makeSandbox();
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    void daemon.exited.then(() => (daemonExited = true));
    bystander = await RawSocket.open(sandbox.socketPath);
    // waitReady's probe connections close asynchronously on the daemon's side.
    await eventually(async () => (await status()).counts.connections === 1, 'the startup probes to disconnect');
    initialProtocolErrors = (await status()).counts.protocolErrors;
  });

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      process.stderr.write(`\n--- memd output (pid ${daemon.pid}) ---\n${daemon.output()}\n---\n`);
    });
  });

  afterEach(() => {
    for (const socket of abusers.splice(0)) socket.close();
  });

  afterAll(() => bystander?.close());

  it('answers a line that is not JSON with -32700 and closes only that connection', async () => {
    const socket = await abuser();
    socket.send('this is not json\n');
    expect(errorOf(await socket.next())).toMatchObject({ code: ErrorCode.ParseError, data: { kind: 'ParseError' } });
    await socket.waitClosed();
    await expectBystanderServed();
  });

  it('answers what came before a bad line, then reads nothing after it', async () => {
    const socket = await abuser();
    socket.send(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'daemon.version' })}\n{"half":\n` +
        `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'daemon.version' })}\n`,
    );
    const messages = (await drainUntilClosed(socket)) as Message[];
    expect(messages).toHaveLength(2);
    expect(messages.find((message) => message.id === 1)?.result).toMatchObject({ name: 'memd' });
    expect(errorOf(messages.find((message) => message.id === null)).code).toBe(ErrorCode.ParseError);
    await expectBystanderServed();
  });

  it.each([
    ['without a newline', ''],
    ['with a newline', '\n'],
  ])('closes a connection that sends a 17 MiB frame %s, without buffering it whole', async (_name, ending) => {
    expect(OVERSIZED_FRAME_BYTES).toBeGreaterThan(MAX_FRAME_BYTES);
    const rssBefore = (await status()).memory.rssBytes;
    const peakBefore = peakRssBytes(daemon.pid);
    const socket = await abuser();
    // A valid JSON string, so only its size is wrong with it.
    const frame = Buffer.alloc(OVERSIZED_FRAME_BYTES, 0x61);
    frame[0] = 0x22;
    frame[frame.length - 1] = 0x22;
    socket.send(frame);
    socket.send(ending);
    expect(errorOf(await socket.next())).toMatchObject({ code: ErrorCode.ParseError, data: { kind: 'ParseError' } });
    await socket.waitClosed();
    await expectBystanderServed();

    expect((await status()).memory.rssBytes - rssBefore).toBeLessThan(MAX_RSS_GROWTH_BYTES);
    const peakAfter = peakRssBytes(daemon.pid);
    if (peakBefore !== undefined && peakAfter !== undefined)
      expect(peakAfter - peakBefore).toBeLessThan(MAX_RSS_GROWTH_BYTES);
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'x'],
    ['a number', 5],
    ['null', null],
  ])('answers params that are %s with -32602 and keeps the connection', async (_name, params) => {
    const socket = await abuser();
    socket.sendJson({ jsonrpc: '2.0', id: 7, method: 'daemon.status', params });
    const response = await socket.responseTo(7);
    expect(errorOf(response)).toMatchObject({ code: ErrorCode.InvalidParams, data: { kind: 'InvalidParams' } });
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    await expectBystanderServed();
  });

  it('answers an unknown method, and a protocol method this daemon does not serve yet, with -32601', async () => {
    const socket = await abuser();
    const unknown = await socket.request('no.such.method', {});
    expect(errorOf(unknown)).toMatchObject({
      code: ErrorCode.MethodNotFound,
      data: { kind: 'MethodNotFound', method: 'no.such.method' },
    });

    const capabilities = ((await socket.request('daemon.version', {})).result as VersionInfo).capabilities;
    const protocolMethods = Object.values(Methods).map((descriptor) => descriptor.name);
    for (const name of protocolMethods.filter((method) => !capabilities.includes(method))) {
      const response = await socket.request(name, {});
      expect(errorOf(response), name).toMatchObject({
        code: ErrorCode.MethodNotFound,
        data: { kind: 'MethodNotFound', method: name },
      });
      expect(errorOf(response).message).toContain('not served');
    }
    // And what it claims to serve, it does serve (shutdown aside, which would end this file).
    for (const name of capabilities.filter(
      (method) => protocolMethods.includes(method) && method !== 'daemon.shutdown',
    )) {
      const response = await socket.request(name, {});
      expect((response.error as ErrorShape | undefined)?.code, name).not.toBe(ErrorCode.MethodNotFound);
    }
    await expectBystanderServed();
  });

  it('refuses a batch over the limit with one -32600 and keeps the connection', async () => {
    const socket = await abuser();
    const batch = Array.from({ length: HUGE_BATCH }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'daemon.version',
    }));
    socket.sendJson(batch);
    const answer = await socket.next();
    expect(Array.isArray(answer)).toBe(false);
    expect(answer).toMatchObject({ id: null });
    expect(errorOf(answer)).toMatchObject({ code: ErrorCode.InvalidRequest, data: { kind: 'InvalidBatch' } });
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    expect(await alreadyReceived(socket)).toEqual([]);
    await expectBystanderServed();
  });

  it('answers a batch of valid requests with an array of answers, up to the limit', async () => {
    const socket = await abuser();
    for (const size of [10, MAX_BATCH_SIZE]) {
      const ids = Array.from({ length: size }, (_, i) => `batch-${size}-${i}`);
      socket.sendJson(
        ids.map((id, i) => ({ jsonrpc: '2.0', id, method: i % 2 === 0 ? 'daemon.version' : 'daemon.status' })),
      );
      const answer = (await socket.next()) as Message[];
      expect(Array.isArray(answer)).toBe(true);
      expect(answer.map((response) => response.id).sort()).toEqual([...ids].sort());
      for (const response of answer) {
        const index = ids.indexOf(response.id as string);
        expect(response.result).toMatchObject(index % 2 === 0 ? { name: 'memd' } : { pid: daemon.pid });
      }
    }
    await expectBystanderServed();
  });

  it('answers an empty batch with -32600, a batch of non-objects with an error each, a batch of notifications with nothing', async () => {
    const socket = await abuser();
    socket.send('[]\n');
    expect(errorOf(await socket.next())).toMatchObject({
      code: ErrorCode.InvalidRequest,
      data: { kind: 'InvalidBatch' },
    });

    socket.send('[1,2]\n');
    const answers = (await socket.next()) as Message[];
    expect(answers).toHaveLength(2);
    for (const answer of answers) expect(errorOf(answer).code).toBe(ErrorCode.InvalidRequest);

    socket.sendJson([
      { jsonrpc: '2.0', method: 'daemon.version' },
      { jsonrpc: '2.0', method: 'no.such.method' },
    ]);
    // Two round trips later, any answer to that batch would have been written.
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    expect(await alreadyReceived(socket)).toEqual([]);
    await expectBystanderServed();
  });

  it.each([
    [
      'params nested as objects',
      (id: number) =>
        `{"jsonrpc":"2.0","id":${id},"method":"daemon.status","params":${nested('{"a":', '1', '}', HOSTILE_DEPTH)}}`,
    ],
    ['a batch nested as arrays', () => nested('[', '', ']', HOSTILE_DEPTH)],
  ])('survives %s 100,000 levels deep', async (_name, build) => {
    const socket = await abuser();
    socket.send(`${build(3)}\n`);
    const error = errorOf(await socket.next());
    expect([ErrorCode.InvalidRequest, ErrorCode.ParseError]).toContain(error.code);
    if (error.code === ErrorCode.ParseError) {
      await socket.waitClosed();
    } else {
      expect(error.data?.kind).toBe('TooDeep');
      expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    }
    await expectBystanderServed();
  });

  it.each([
    ['jsonrpc is missing', { id: 11, method: 'daemon.version' }, 11],
    ['jsonrpc is "1.0"', { jsonrpc: '1.0', id: 12, method: 'daemon.version' }, 12],
    ['method is not a string', { jsonrpc: '2.0', id: 13, method: 42 }, 13],
    ['method is empty', { jsonrpc: '2.0', id: 14, method: '' }, 14],
    ['id is an object', { jsonrpc: '2.0', id: { nested: true }, method: 'daemon.version' }, null],
    ['the message is not an object', 'daemon.version', null],
  ])('answers an envelope where %s with -32600 and keeps the connection', async (_name, envelope, replyId) => {
    const socket = await abuser();
    socket.sendJson(envelope);
    const answer = await socket.next();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: replyId });
    expect(errorOf(answer)).toMatchObject({ code: ErrorCode.InvalidRequest, data: { kind: 'InvalidRequest' } });
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    await expectBystanderServed();
  });

  it('sends nothing back for a notification, even with an unknown method or bad params', async () => {
    const socket = await abuser();
    socket.sendJson({ jsonrpc: '2.0', method: 'no.such.method', params: {} });
    socket.sendJson({ jsonrpc: '2.0', method: 'daemon.status', params: [1] });
    socket.sendJson({ jsonrpc: '2.0', method: 'daemon.status', params: { x: 1 } });
    // Two round trips later, anything the notifications provoked would have been written.
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    expect((await socket.request('daemon.version', {})).result).toMatchObject({ name: 'memd' });
    expect(await alreadyReceived(socket)).toEqual([]);
    await expectBystanderServed();
  });

  it('names the unknown params field in -32602', async () => {
    const socket = await abuser();
    const response = await socket.request('daemon.status', { x: 1 });
    expect(errorOf(response)).toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { kind: 'InvalidParams', field: 'params.x' },
    });
    await expectBystanderServed();
  });

  it('counts protocol errors in daemon.status', async () => {
    const before = (await status()).counts.protocolErrors;
    // Every earlier test in this file made at least one.
    expect(before).toBeGreaterThan(initialProtocolErrors);
    const socket = await abuser();
    socket.sendJson({ id: 21, method: 'daemon.version' });
    expect(errorOf(await socket.responseTo(21)).code).toBe(ErrorCode.InvalidRequest);
    expect((await status()).counts.protocolErrors).toBe(before + 1);
    socket.send('not json\n');
    await socket.waitClosed();
    expect((await status()).counts.protocolErrors).toBe(before + 2);
    await expectBystanderServed();
  });

  it('is still the same live process, with nothing uncaught in its log', async () => {
    expect(daemonExited).toBe(false);
    expect((await status()).pid).toBe(daemon.pid);
    expect(daemon.output()).not.toMatch(/uncaught|unhandled/i);
    expect(daemon.output()).not.toContain('"level":"error"');
  });
});
