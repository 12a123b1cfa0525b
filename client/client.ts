/**
 * The typed memd client. It connects on first use (starting the daemon when none answers),
 * checks the protocol version on every connection, and re-subscribes after a daemon restart.
 */
import { homedir } from 'node:os';
import { type Env, type MemdPaths, resolvePaths } from '../shared/paths.js';
import { PROTOCOL_VERSION, type VersionInfo } from '../shared/protocol/daemon.js';
import { ErrorCode, RpcError } from '../shared/protocol/errors.js';
import type { EventPayloads, EventTopic } from '../shared/protocol/events.js';
import { type MethodDescriptor, Methods, type ParamsOf, type ResultOf } from '../shared/protocol/methods.js';
import type { StartResult } from './autostart.js';
import { openSocket, RpcConnection } from './connection.js';
import { ClientError } from './errors.js';

/** DESIGN: every call, including connecting and starting the daemon, answers within this. */
export const DEFAULT_TIMEOUT_MS = 3_000;
/**
 * Methods that may ask a model (60 s with retries on the daemon's side), run git (5 s) or render
 * a large session's report (seconds): the default call timeout would give up on them while the
 * daemon still works. A caller's own `timeoutMs` (the hooks pass their deadline) wins.
 */
export const SLOW_METHOD_TIMEOUT_MS = 90_000;
const SLOW_METHODS = new Set([
  'handoff.generate',
  'compact.auto',
  'compact.reactive',
  'memory.extract',
  'archive.restore',
  'archive.verify',
  'archive.prune',
  'archive.forget',
  'export.session',
]);
/** How often to knock while a just-started daemon comes up. */
const STARTUP_POLL_MS = 20;
/**
 * How long a daemon this client started may take to answer, unless the caller chose a timeout: a
 * first start (migrations, the parse worker) on a loaded machine takes seconds, and the request
 * then gets its own full timeout, not what the start left of it (CI saw "no answer within 1 ms").
 */
const START_WAIT_MS = 15_000;
/** Reconnect backoff after the daemon goes away, doubling up to the cap. */
const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 2_000;

export interface ClientOptions {
  /** Defaults to the paths DESIGN.md §2 resolves from `env`. */
  socketPath?: string;
  env?: Env;
  /** Start the daemon when none answers (default true). */
  autostart?: boolean;
  timeoutMs?: number;
  /** Keep the host process alive while subscribed (default false: an idle client never does). */
  keepAlive?: boolean;
}

type Listener = (payload: unknown, topic: EventTopic) => void;

/** A topic's listeners and the daemon's confirmation of the subscription, shared by every on(). */
interface Subscription {
  listeners: Set<Listener>;
  confirmed: Promise<void>;
}

function isNoDaemonError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ENOENT';
}

/** Only used while a call waits, so it must hold the process open like the call itself does. */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const remaining = (deadline: number) => Math.max(1, deadline - Date.now());

/** The longest Busy hint the client waits out; a larger one is the daemon's business to explain. */
const MAX_BUSY_WAIT_MS = 10_000;

/** How long memd asked the caller to wait before retrying, when it answered Busy. */
function busyRetryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof RpcError) || error.code !== ErrorCode.Busy) return undefined;
  const hint = error.data.retryAfterMs;
  return typeof hint === 'number' && Number.isFinite(hint) && hint >= 0 ? Math.min(hint, MAX_BUSY_WAIT_MS) : undefined;
}

export class MemdClient {
  readonly paths: MemdPaths;
  readonly socketPath: string;
  private readonly env: Env;
  private readonly autostart: boolean;
  private readonly timeoutMs: number;
  /** Set when the caller chose the timeout: then it holds for slow methods too. */
  private readonly timeoutChosen: boolean;
  private readonly keepAlive: boolean;
  private connection: RpcConnection | undefined;
  private connecting: Promise<RpcConnection> | undefined;
  private readonly subscriptions = new Map<EventTopic, Subscription>();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The daemon's handshake answer on the current connection. */
  daemon: VersionInfo | undefined;
  /** How this client last started the daemon, if it did. */
  started: StartResult['via'] | undefined;
  /** How many times this client started the daemon: a request that saw a start gets a fresh budget. */
  private starts = 0;
  /** Reconnect attempts since the last connection was lost (to watch a client wait for memd). */
  reconnectAttempts = 0;

  constructor(options: ClientOptions = {}) {
    this.env = options.env ?? process.env;
    this.paths = resolvePaths(this.env, homedir());
    this.socketPath = options.socketPath ?? this.paths.socketPath;
    this.autostart = options.autostart ?? true;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.timeoutChosen = options.timeoutMs !== undefined;
    this.keepAlive = options.keepAlive ?? false;
  }

  /** Calls any method by descriptor, with its params and result typed. */
  async call<M extends MethodDescriptor<unknown, unknown>>(descriptor: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return (await this.request(descriptor.name, params as object, this.autostart)) as ResultOf<M>;
  }

  /** Calls a method by name with raw params (memctl call); the daemon validates them. */
  callRaw(method: string, params: object): Promise<unknown> {
    return this.request(method, params, this.autostart);
  }

  /** Subscribes to a topic; the returned function unsubscribes. Survives daemon restarts. */
  async on<T extends EventTopic>(
    topic: T,
    listener: (payload: EventPayloads[T], topic: T) => void,
  ): Promise<() => Promise<void>> {
    let subscription = this.subscriptions.get(topic);
    if (!subscription) {
      const created: Subscription = {
        listeners: new Set(),
        confirmed: this.request(Methods.eventsSubscribe.name, { topics: [topic] }, this.autostart).then(
          () => undefined,
        ),
      };
      // Not subscribed after all: forget the topic, so that the next on() asks the daemon again.
      created.confirmed.catch(() => {
        if (this.subscriptions.get(topic) === created) this.subscriptions.delete(topic);
        this.updateHold();
      });
      this.subscriptions.set(topic, created);
      subscription = created;
    }
    const listeners = subscription.listeners;
    listeners.add(listener as Listener);
    this.updateHold();
    await subscription.confirmed;
    return async () => {
      listeners.delete(listener as Listener);
      if (listeners.size > 0 || this.subscriptions.get(topic) !== subscription) return;
      this.subscriptions.delete(topic);
      this.updateHold();
      if (this.connection?.isOpen) await this.request(Methods.eventsUnsubscribe.name, { topics: [topic] }, false);
    };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.holdTimer);
    this.subscriptions.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  private async request(method: string, params: object, mayStart: boolean): Promise<unknown> {
    const slow = !this.timeoutChosen && SLOW_METHODS.has(method);
    const deadline = Date.now() + (slow ? SLOW_METHOD_TIMEOUT_MS : this.timeoutMs);
    try {
      return await this.requestOnce(method, params, mayStart, deadline);
    } catch (error) {
      // Busy: memd did not run it (other clients' unread answers fill its budget); once more after its hint, if the deadline allows.
      const waitMs = busyRetryAfterMs(error);
      if (waitMs === undefined || Date.now() + waitMs >= deadline) throw error;
      await delay(waitMs);
      return this.requestOnce(method, params, mayStart, deadline);
    }
  }

  private async requestOnce(method: string, params: object, mayStart: boolean, deadline: number): Promise<unknown> {
    const startsBefore = this.starts;
    const connection = await this.connect(Math.min(deadline, Date.now() + this.timeoutMs), mayStart);
    const startedNow = this.starts !== startsBefore && !this.timeoutChosen;
    return connection.call(
      method,
      params,
      startedNow ? Math.max(remaining(deadline), this.timeoutMs) : remaining(deadline),
    );
  }

  private connect(deadline: number, mayStart: boolean): Promise<RpcConnection> {
    if (this.closed) return Promise.reject(new ClientError('Closed', 'the client was closed'));
    if (this.connection?.isOpen) return Promise.resolve(this.connection);
    this.connecting ??= this.establish(deadline, mayStart).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Nothing but the handshake goes out before the daemon's protocol is known to be ours. */
  private async establish(deadline: number, mayStart: boolean): Promise<RpcConnection> {
    const startsBefore = this.starts;
    const socket = await this.openOrStart(deadline, mayStart);
    // A daemon just started answers its handshake within the client's own timeout, whatever the start took.
    const handshakeMs = this.starts !== startsBefore && !this.timeoutChosen ? this.timeoutMs : remaining(deadline);
    const connection = new RpcConnection(
      socket,
      (method, params) => this.dispatch(method, params),
      () => this.onConnectionClosed(connection),
    );
    let version: VersionInfo;
    try {
      version = (await connection.call(Methods.daemonVersion.name, {}, handshakeMs)) as VersionInfo;
    } catch (error) {
      // A daemon that missed the handshake deadline gets no second chance on this socket; keeping it would leak one per call.
      connection.close();
      throw error;
    }
    if (version.protocol !== PROTOCOL_VERSION) {
      connection.close();
      throw new RpcError(
        ErrorCode.VersionMismatch,
        'VersionMismatch',
        `memd ${version.version} speaks protocol ${version.protocol}, this client speaks ${PROTOCOL_VERSION}; restart the daemon with: memctl stop && memctl start`,
      );
    }
    this.daemon = version;
    this.connection = connection;
    return connection;
  }

  private async openOrStart(deadline: number, mayStart: boolean) {
    try {
      return await openSocket(this.socketPath, remaining(deadline));
    } catch (error) {
      if (!isNoDaemonError(error)) throw error;
    }
    if (mayStart) return this.startAndWait(deadline);
    // One retry: a daemon that is restarting may be between unlink and listen.
    await delay(STARTUP_POLL_MS);
    try {
      return await openSocket(this.socketPath, remaining(deadline));
    } catch (error) {
      if (!isNoDaemonError(error)) throw error;
      throw new ClientError(
        'NoDaemon',
        `memd is not running (nothing answers on ${this.socketPath}); start it with: memctl start`,
        error,
      );
    }
  }

  private async startAndWait(deadline: number) {
    // Loaded only when needed: child_process costs every memctl run several milliseconds.
    const { startDaemon } = await import('./autostart.js');
    const start = await startDaemon(this.env, this.paths);
    this.started = start.via;
    this.starts += 1;
    const startedAt = Date.now();
    const waitUntil = this.timeoutChosen ? deadline : Math.max(deadline, Date.now() + START_WAIT_MS);
    let exitCode: number | null | undefined;
    void start.exited?.then((code) => {
      exitCode = code;
    });
    let lastError: unknown;
    while (Date.now() < waitUntil) {
      try {
        return await openSocket(this.socketPath, remaining(waitUntil));
      } catch (error) {
        if (!isNoDaemonError(error)) throw error;
        lastError = error;
      }
      if (exitCode !== undefined && exitCode !== 0) {
        throw new ClientError(
          'NoDaemon',
          `memd exited with code ${exitCode} at start; run \`memd --foreground\` to see why`,
        );
      }
      await delay(STARTUP_POLL_MS);
    }
    throw new ClientError(
      'NoDaemon',
      `memd was started (${start.via}) but did not answer on ${this.socketPath} within ${waitUntil - startedAt} ms; see ${this.paths.logPath} or run \`memd --foreground\``,
      lastError,
    );
  }

  private dispatch(method: string, params: unknown): void {
    const subscription = this.subscriptions.get(method as EventTopic);
    if (!subscription) return;
    for (const listener of subscription.listeners) listener(params, method as EventTopic);
  }

  /** A client that subscribes with keepAlive holds the process open; otherwise nothing does. */
  private updateHold(): void {
    const hold = this.keepAlive && this.subscriptions.size > 0 && !this.closed;
    if (hold && !this.holdTimer) this.holdTimer = setInterval(() => {}, 1 << 30);
    if (!hold && this.holdTimer) {
      clearInterval(this.holdTimer);
      this.holdTimer = undefined;
    }
  }

  private onConnectionClosed(connection: RpcConnection): void {
    if (this.connection === connection) this.connection = undefined;
    if (this.closed || this.subscriptions.size === 0) return;
    this.scheduleReconnect(RECONNECT_FIRST_MS);
  }

  private scheduleReconnect(waitMs: number): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.resubscribe(waitMs), waitMs);
    if (!this.keepAlive) this.reconnectTimer.unref();
  }

  /**
   * Reconnects without starting a daemon: one that went away was stopped on purpose (memctl stop,
   * a hand-over to systemd), and a watching client must not undo that.
   */
  private async resubscribe(waitMs: number): Promise<void> {
    if (this.closed || this.subscriptions.size === 0) return;
    this.reconnectAttempts++;
    try {
      await this.request(Methods.eventsSubscribe.name, { topics: [...this.subscriptions.keys()] }, false);
      this.reconnectAttempts = 0;
    } catch {
      this.scheduleReconnect(Math.min(waitMs * 2, RECONNECT_MAX_MS));
    }
  }
}
