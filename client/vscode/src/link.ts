/**
 * The extension's connection to memd, through the typed client (`memd/client`): connected,
 * connecting or not answering, with the events the views need. The client re-subscribes by
 * itself after a daemon restart but says nothing when it does; the link watches it (two of its
 * fields, no I/O), tries again with a backoff while memd is away, subscribes explicitly on every
 * new connection and then reports a new generation, on which the views reload what they missed.
 * It never starts a daemon unless the user asked (memd.autostart, or memd: Start the Daemon).
 */

import type { VersionInfo } from '../../../shared/protocol/daemon.js';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { EventTopic } from '../../../shared/protocol/events.js';
import { ClientError } from '../../errors.js';
import { type Client, type ClientOptions, createClient } from '../../index.js';
import type { Starter, StartOutcome } from './start.js';

export const LINK_TOPICS = [
  'session.updated',
  'session.thresholdCrossed',
  'daemon.stopping',
] as const satisfies readonly EventTopic[];

/** The first wait after a failed attempt: a daemon that restarts is back within it. */
export const RETRY_FIRST_MS = 500;
/** The cap: an editor left open for hours without memd knocks twice a minute (a refused connect costs nothing). */
export const RETRY_MAX_MS = 30_000;
/** How soon a lost or regained connection shows: the check reads two fields of the client. */
export const WATCH_MS = 1_000;

export type LinkState =
  | { kind: 'connecting' }
  /** `generation` grows with every new connection: the views reload on a change of it. */
  | { kind: 'connected'; daemon: VersionInfo; generation: number }
  | { kind: 'disconnected'; reason: string; retryInMs: number | null };

export interface LinkListeners {
  state?(state: LinkState): void;
  /** Payloads as they came from the socket: the receiver validates them. */
  sessionUpdated?(payload: unknown): void;
  thresholdCrossed?(payload: unknown): void;
}

export interface LinkOptions {
  /** Socket and environment; the link's client never starts a daemon itself. */
  client: Omit<ClientOptions, 'autostart'>;
  /** Runs the user's start command; used at the first failed attempt when `autostart`, and by startDaemon(). */
  starter?: Starter;
  autostart?: boolean;
  retryFirstMs?: number;
  retryMaxMs?: number;
  watchMs?: number;
  log?(line: string): void;
}

/** What to tell the user about a failure, in memd's own words where it gave some. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Failures that mean memd is not there (as opposed to a call it answered with an error). */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof ClientError)
    return error.kind === 'NoDaemon' || error.kind === 'ConnectionLost' || error.kind === 'BadResponse';
  return error instanceof RpcError && error.code === ErrorCode.ShuttingDown;
}

export class DaemonLink {
  readonly client: Client;
  private state: LinkState = { kind: 'connecting' };
  private readonly listeners = new Set<LinkListeners>();
  private readonly registered = new Set<EventTopic>();
  /** The handshake answer of the connection the views were loaded from: a different object is a new connection. */
  private seen: VersionInfo | undefined;
  private generation = 0;
  private wait: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private attempting: Promise<void> | undefined;
  private autostartPending: boolean;
  private disposed = false;
  private readonly retryFirstMs: number;
  private readonly retryMaxMs: number;

  constructor(private readonly options: LinkOptions) {
    this.client = createClient({ ...options.client, autostart: false });
    this.retryFirstMs = options.retryFirstMs ?? RETRY_FIRST_MS;
    this.retryMaxMs = options.retryMaxMs ?? RETRY_MAX_MS;
    this.wait = this.retryFirstMs;
    this.autostartPending = options.autostart === true && options.starter !== undefined;
  }

  get current(): LinkState {
    return this.state;
  }

  /** Adds listeners; the returned function removes them. */
  listen(listeners: LinkListeners): () => void {
    this.listeners.add(listeners);
    return () => this.listeners.delete(listeners);
  }

  /** Connects (retrying until it succeeds) and watches the connection from then on. */
  start(): Promise<void> {
    this.watchTimer ??= setInterval(() => this.watch(), this.options.watchMs ?? WATCH_MS);
    this.watchTimer.unref();
    return this.attempt();
  }

  /** Tries now, with the backoff reset (memd: Refresh). */
  retryNow(): Promise<void> {
    this.wait = this.retryFirstMs;
    return this.attempt();
  }

  /** A call failed: when it failed for want of memd, the link is down too. */
  suspect(error: unknown): void {
    if (isConnectionError(error)) this.lost(describeError(error));
  }

  /** The user asked for memd: run the start command, then connect. */
  async startDaemon(): Promise<StartOutcome> {
    const starter = this.options.starter;
    if (starter === undefined) return { ok: false, message: 'no start command is configured (memd.startCommand)' };
    const outcome = await starter();
    this.options.log?.(`start command: ${outcome.ok ? 'ok' : 'failed'}: ${outcome.message}`);
    await this.retryNow();
    return outcome;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.watchTimer);
    this.listeners.clear();
    this.client.close();
  }

  private setState(state: LinkState): void {
    this.state = state;
    for (const listeners of this.listeners) listeners.state?.(state);
  }

  private emit(topic: EventTopic, payload: unknown): void {
    if (topic === 'daemon.stopping') {
      const reason =
        typeof (payload as { reason?: unknown } | null)?.reason === 'string'
          ? (payload as { reason: string }).reason
          : 'no reason given';
      this.lost(`memd is stopping (${reason})`);
      return;
    }
    for (const listeners of this.listeners) {
      if (topic === 'session.updated') listeners.sessionUpdated?.(payload);
      else if (topic === 'session.thresholdCrossed') listeners.thresholdCrossed?.(payload);
    }
  }

  /** One attempt at a time; a caller that comes during one waits for it. */
  private attempt(): Promise<void> {
    this.attempting ??= this.connectOnce().finally(() => {
      this.attempting = undefined;
    });
    return this.attempting;
  }

  private async connectOnce(): Promise<void> {
    clearTimeout(this.retryTimer);
    if (this.disposed) return;
    try {
      await this.subscribe();
    } catch (error) {
      if (this.disposed) return;
      if (this.autostartPending && error instanceof ClientError && error.kind === 'NoDaemon') {
        this.autostartPending = false;
        const outcome = await (this.options.starter as Starter)();
        this.options.log?.(`memd.autostart: ${outcome.ok ? 'started' : 'could not start'}: ${outcome.message}`);
        return this.connectOnce();
      }
      this.retryLater(describeError(error));
      return;
    }
    this.autostartPending = false;
    this.wait = this.retryFirstMs;
    const daemon = this.client.daemon;
    // A check of the connection the views were loaded from: nothing was missed.
    if (this.state.kind === 'connected' && daemon === this.seen) return;
    if (daemon === undefined) return this.retryLater('memd answered without a handshake');
    this.seen = daemon;
    this.generation++;
    this.setState({ kind: 'connected', daemon, generation: this.generation });
  }

  /**
   * Registers the listeners once (the client keeps them over reconnections), then subscribes on
   * the current connection: the client's own re-subscription runs on its timer, and the views
   * must not reload before this connection sends the events that follow.
   */
  private async subscribe(): Promise<void> {
    for (const topic of LINK_TOPICS) {
      if (this.registered.has(topic)) continue;
      await this.client.on(topic, (payload: unknown) => this.emit(topic, payload));
      this.registered.add(topic);
    }
    await this.client.eventsSubscribe({ topics: [...LINK_TOPICS] });
  }

  private retryLater(reason: string): void {
    const wait = this.wait;
    this.wait = Math.min(wait * 2, this.retryMaxMs);
    this.setState({ kind: 'disconnected', reason, retryInMs: wait });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.attempt(), wait);
    this.retryTimer.unref();
  }

  private lost(reason: string): void {
    if (this.disposed || this.state.kind !== 'connected') return;
    this.options.log?.(`connection lost: ${reason}`);
    this.wait = this.retryFirstMs;
    this.retryLater(reason);
  }

  /**
   * A new handshake object means the client connected again on its own (its re-subscription after
   * a restart); reconnect attempts mean it lost the connection, or did and has it back while its
   * own count waits for its next timer. Either way one attempt tells: it subscribes on the open
   * connection, or fails and the link is down.
   */
  private watch(): void {
    if (this.disposed || this.state.kind !== 'connected') return;
    if (this.client.daemon !== this.seen || this.client.reconnectAttempts > 0) void this.attempt();
  }
}
