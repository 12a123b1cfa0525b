/**
 * One socket to the daemon speaking NDJSON JSON-RPC: correlates responses with calls, hands
 * notifications to a callback, and keeps the host process alive only while a call is waiting.
 */
import { lstatSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { RpcError, type RpcErrorObject } from '../shared/protocol/errors.js';
import { LineSplitter } from '../shared/protocol/framing.js';
import { isRecord } from '../shared/values.js';
import { ClientError } from './errors.js';
import { describeOwner } from './owner.js';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export type NotificationHandler = (method: string, params: unknown) => void;

/** Group or world write: someone else could have put a socket there, or swap it. */
const OTHERS_WRITE = 0o022;

/**
 * Why the socket at `path` may not be memd's own, or null. It and its directory must belong to
 * this user and the directory must not be writable by others: with XDG_RUNTIME_DIR or
 * MEMD_SOCKET in a shared dir, another user's fake memd would otherwise get the summaries and
 * feed the SessionStart hook. A socket that is not there is no one's (connecting says so).
 * Node exposes no peer credentials (SO_PEERCRED), so ownership of the path is the check.
 */
export function unsafeSocketReason(path: string, uid = process.getuid?.()): string | null {
  if (uid === undefined) return null;
  let socket;
  try {
    socket = lstatSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? deniedReason(path, uid) : null;
  }
  if (!socket.isSocket()) return `${path} is not a socket`;
  if (socket.uid !== uid) return `${path} belongs to ${describeOwner(socket.uid)}, not to this user (${uid})`;
  const dir = dirname(path);
  let parent;
  try {
    parent = statSync(dir);
  } catch {
    return null;
  }
  if (parent.uid !== uid)
    return `the socket's directory ${dir} belongs to ${describeOwner(parent.uid)}, not to this user (${uid})`;
  if ((parent.mode & OTHERS_WRITE) !== 0)
    return `the socket's directory ${dir} is writable by others (mode ${(parent.mode & 0o7777).toString(8)})`;
  return null;
}

/**
 * Why this user may not reach the socket (EACCES): the nearest directory on its way that it can
 * see, and whose that is. Another user's memd lives in their private dir, which is what this says.
 */
function deniedReason(path: string, uid: number): string {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      const found = statSync(dir);
      const owner =
        found.uid === uid
          ? 'this user, who may not enter it'
          : `${describeOwner(found.uid)}, not to this user (${uid})`;
      return `${path} is another user's: ${dir} belongs to ${owner}`;
    } catch {
      if (dirname(dir) === dir) return `${path} is not this user's to reach (permission denied)`;
    }
  }
}

export function openSocket(path: string, timeoutMs: number): Promise<Socket> {
  const uid = process.getuid?.();
  const unsafe = unsafeSocketReason(path, uid);
  if (unsafe !== null)
    return Promise.reject(
      new ClientError(
        'UnsafeSocket',
        `refusing to talk to ${path}: ${unsafe}; set MEMD_SOCKET or XDG_RUNTIME_DIR to a directory of your own`,
      ),
    );
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ClientError('Timeout', `no answer from ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A socket this user may not write to is someone else's: say whose, as UnsafeSocket does.
      if (error.code === 'EACCES' && uid !== undefined)
        reject(
          new ClientError(
            'UnsafeSocket',
            `cannot talk to ${path}: ${deniedReason(path, uid)}; set MEMD_SOCKET or XDG_RUNTIME_DIR to a directory of your own`,
            error,
          ),
        );
      else reject(error);
    });
  });
}

export class RpcConnection {
  private readonly pending = new Map<number, Pending>();
  private readonly splitter = new LineSplitter();
  private nextId = 1;
  private closedError: Error | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly onNotification: NotificationHandler,
    private readonly onClose: (error: Error) => void,
  ) {
    socket.setNoDelay?.(true);
    socket.unref();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {
      // 'close' follows and fails what is pending.
    });
    socket.on('close', () => this.fail(new ClientError('ConnectionLost', 'the connection to memd closed')));
  }

  get isOpen(): boolean {
    return this.closedError === undefined;
  }

  call(method: string, params: object, timeoutMs: number): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.updateRef();
        // The daemon would otherwise work on for a caller that no longer waits.
        if (!this.closedError)
          this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } })}\n`);
        reject(new ClientError('Timeout', `${method} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.updateRef();
      this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  close(): void {
    this.fail(new ClientError('Closed', 'the client was closed'));
    this.socket.destroy();
  }

  private updateRef(): void {
    if (this.pending.size > 0) this.socket.ref();
    else this.socket.unref();
  }

  private onData(chunk: Buffer): void {
    const { lines, overflow } = this.splitter.push(chunk);
    for (const line of lines) this.onLine(line);
    if (overflow) {
      this.fail(new ClientError('BadResponse', 'memd sent a frame over the 16 MiB limit'));
      this.socket.destroy();
    }
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.fail(new ClientError('BadResponse', 'memd sent a line that is not JSON'));
      this.socket.destroy();
      return;
    }
    const messages = Array.isArray(message) ? message : [message];
    for (const entry of messages) this.onMessage(entry);
  }

  private onMessage(message: unknown): void {
    if (!isRecord(message)) return;
    if (typeof message.method === 'string' && message.id === undefined) {
      this.onNotification(message.method, message.params);
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    this.updateRef();
    if (isRecord(message.error)) {
      const error = message.error;
      const code = typeof error.code === 'number' ? error.code : -32603;
      const text = typeof error.message === 'string' ? error.message : 'error without a message';
      const data = isRecord(error.data) ? (error.data as RpcErrorObject['data']) : undefined;
      pending.reject(RpcError.fromObject({ code, message: text, ...(data ? { data } : {}) }));
      return;
    }
    pending.resolve(message.result);
  }

  private fail(error: Error): void {
    if (this.closedError) return;
    this.closedError = error;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.pending.clear();
    this.onClose(error);
  }
}
