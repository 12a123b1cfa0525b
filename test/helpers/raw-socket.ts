/** A bare NDJSON socket for tests that must send what the typed client never would. */
import { connect, type Socket } from 'node:net';
import { LineSplitter } from '../../shared/protocol/framing.js';

export const DEFAULT_WAIT_MS = 10_000;

export class RawSocket {
  private readonly splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
  private readonly queue: unknown[] = [];
  private waiters: (() => void)[] = [];
  private nextId = 1;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const line of this.splitter.push(chunk).lines) this.queue.push(JSON.parse(line));
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(path: string): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new RawSocket(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  private async waitFor(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  sendJson(message: unknown): void {
    this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and returns its response (messages before it stay queued). */
  async request(method: string, params?: unknown, timeoutMs = DEFAULT_WAIT_MS): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.sendJson({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return this.responseTo(id, timeoutMs);
  }

  async responseTo(id: unknown, timeoutMs = DEFAULT_WAIT_MS): Promise<Record<string, unknown>> {
    const index = () => this.queue.findIndex((message) => (message as { id?: unknown }).id === id);
    await this.waitFor(() => index() !== -1 || this.closed, `response ${String(id)}`, timeoutMs);
    const at = index();
    if (at === -1) throw new Error(`connection closed before response ${String(id)}`);
    return this.queue.splice(at, 1)[0] as Record<string, unknown>;
  }

  /** The next message of any kind, in arrival order. */
  async next(timeoutMs = DEFAULT_WAIT_MS): Promise<unknown> {
    await this.waitFor(() => this.queue.length > 0 || this.closed, 'a message', timeoutMs);
    if (this.queue.length === 0) throw new Error('connection closed with no message');
    return this.queue.shift();
  }

  waitClosed(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.waitFor(() => this.closed, 'the connection to close', timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }
}
