/**
 * One client connection: NDJSON framing, envelope checks, dispatch, notifications, cancellation.
 * A frame that is not JSON (or too large) gets -32700 and closes this connection only. The answers
 * it makes itself, and the frame every answer goes out in, are connection-answers.ts's.
 */
import type { Socket } from 'node:net';
import {
  checkRequest,
  errorEnvelope,
  exceedsDepth,
  MAX_BATCH_SIZE,
  type RequestEnvelope,
  type RequestId,
} from '../../shared/protocol/envelope.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { EventTopic } from '../../shared/protocol/events.js';
import { LineSplitter } from '../../shared/protocol/framing.js';
import type { Logger } from '../log/logger.js';
import { type AnswerBudget, type BudgetMember, CONNECTION_SHARE_BYTES, type Ticket } from './budget.js';
import { cancelled, duplicateId, serializeWithin, shuttingDown } from './connection-answers.js';
import type { CallContext, ConnectionHandle, Dispatcher } from './dispatch.js';

/** A client that stops reading its answers is cut off rather than allowed to grow our buffers. */
const MAX_UNREAD_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Past this many requests in flight we stop reading from the socket until some finish. */
const MAX_IN_FLIGHT_PER_CONNECTION = 256;
/** After a bad frame, how long a peer that reads nothing may keep its last answers unflushed. */
const BAD_FRAME_LINGER_MS = 5_000;
/** LSP's cancellation notification, which memd honours too. */
const CANCEL_METHOD = '$/cancelRequest';

/** How long a client may hold a connection open, a frame unfinished, its answers unread (config: idleTimeoutMs, frameTimeoutMs, answerStallTimeoutMs). */
export interface ConnectionLimits {
  /** No request, no subscription, no byte received for this long: the connection is closed. */
  idleMs: number;
  /** A frame begun must end with its newline within this (16 MiB over a Unix socket takes milliseconds). */
  frameMs: number;
  /** Answers queued and not one byte of them read for this long: the connection is closed, freeing its part of the budget. */
  stallMs: number;
}

export interface ConnectionHooks {
  dispatcher: Dispatcher;
  log: Logger;
  /** False once shutdown began: requests then get ShuttingDown. */
  accepting(): boolean;
  onRequest(): void;
  onProtocolError(): void;
  onClose(connection: Connection): void;
  limits: ConnectionLimits;
  /** Shared by every connection: heavy requests wait their turn or are answered Busy. */
  budget: AnswerBudget;
}

/** The answer of one line (a request or a batch) and the reservations to give back once it is written. */
type Tickets = Ticket[];

export class Connection implements ConnectionHandle, BudgetMember {
  private readonly splitter = new LineSplitter();
  private readonly inFlight = new Map<RequestId | symbol, AbortController>();
  /** The method of each request in flight, for the shutdown's log when it runs past the deadline. */
  private readonly methods = new Map<RequestId | symbol, string>();
  private readonly topics = new Set<EventTopic>();
  private closed = false;
  /** Set after a bad frame: read nothing more, answer what runs, then end. */
  private ending = false;
  private paused = false;
  /** Lines read whose answer is not written yet. */
  private unanswered = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private frameTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  /** Characters handed to the socket so far (writableLength counts a string's length): written minus queued is what the client read. */
  private written = 0;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly hooks: ConnectionHooks,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => hooks.log.debug('connection error', { connection: id, error: error.message }));
    socket.on('close', () => this.onClosed());
    socket.on('drain', () => this.onDrained());
    hooks.budget.join(this);
    this.armIdle();
  }

  queuedBytes(): number {
    return this.closed ? 0 : this.socket.writableLength;
  }

  /** Restarted by every byte received and every answer sent; a subscriber or a running request is never idle. */
  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.closed) return;
      if (this.topics.size > 0 || this.inFlight.size > 0 || this.unanswered > 0) {
        this.armIdle();
        return;
      }
      this.hooks.log.info('closing an idle connection', { connection: this.id, idleMs: this.hooks.limits.idleMs });
      this.socket.end(() => this.socket.destroy());
    }, this.hooks.limits.idleMs);
    this.idleTimer.unref();
  }

  get subscriptionCount(): number {
    return this.topics.size;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get inFlightMethods(): string[] {
    return [...this.methods.values()];
  }

  isSubscribed(topic: EventTopic): boolean {
    return this.topics.has(topic);
  }

  subscribe(topics: readonly EventTopic[]): string[] {
    for (const topic of topics) this.topics.add(topic);
    return [...this.topics];
  }

  unsubscribe(topics: readonly EventTopic[]): string[] {
    for (const topic of topics) this.topics.delete(topic);
    return [...this.topics];
  }

  notify(topic: EventTopic, payload: unknown): void {
    if (this.closed || !this.topics.has(topic)) return;
    this.send({ jsonrpc: '2.0', method: topic, params: payload });
  }

  /** Cancels everything this connection is waiting for (disconnect or shutdown). */
  cancelAll(): void {
    for (const controller of this.inFlight.values()) controller.abort();
  }

  /** Ends the connection after pending writes flush. */
  end(): void {
    if (!this.closed) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.armIdle();
    const { lines, overflow } = this.splitter.push(chunk);
    for (const line of lines) {
      if (this.ending || this.closed) return;
      this.onLine(line);
    }
    if (overflow && !this.ending) this.failFrame('frame is over the 16 MiB limit');
    this.watchPartialFrame();
  }

  /** A half line held open would pin this connection and its buffer for good. */
  private watchPartialFrame(): void {
    if (this.splitter.bufferedBytes === 0 || this.ending || this.closed) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
      return;
    }
    if (this.frameTimer !== undefined) return;
    const frameMs = this.hooks.limits.frameMs;
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      if (this.splitter.bufferedBytes > 0 && !this.ending && !this.closed)
        this.failFrame(`a frame was left unfinished (no newline) for ${frameMs} ms`);
    }, frameMs);
    this.frameTimer.unref();
  }

  private failFrame(message: string): void {
    this.hooks.onProtocolError();
    this.hooks.log.warn('closing connection after a bad frame', { connection: this.id, reason: message });
    this.send(errorEnvelope(null, ErrorCode.ParseError, 'ParseError', message));
    this.ending = true;
    this.socket.pause();
    this.endWhenIdle();
  }

  private endWhenIdle(): void {
    if (!this.ending || this.unanswered > 0 || this.socket.writableEnded) return;
    // We read nothing more from this peer, so a half-closed socket would never see its EOF and
    // never close (a peer still writing would pin it forever): destroy it once the answers are out.
    this.socket.end(() => this.socket.destroy());
    setTimeout(() => this.socket.destroy(), BAD_FRAME_LINGER_MS).unref();
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.failFrame(`not JSON: ${(error as Error).message}`);
      return;
    }
    if (exceedsDepth(message)) {
      this.hooks.onProtocolError();
      this.send(
        errorEnvelope(null, ErrorCode.InvalidRequest, 'TooDeep', 'message nests deeper than the protocol allows'),
      );
      return;
    }
    this.unanswered++;
    const tickets: Tickets = [];
    if (!Array.isArray(message)) {
      void this.handleOne(message, tickets).then((response) => this.sendAndSettle(response, tickets));
      return;
    }
    if (message.length === 0 || message.length > MAX_BATCH_SIZE) {
      this.unanswered--;
      this.hooks.onProtocolError();
      const reason =
        message.length === 0 ? 'an empty batch' : `a batch of ${message.length}; the limit is ${MAX_BATCH_SIZE}`;
      this.send(errorEnvelope(null, ErrorCode.InvalidRequest, 'InvalidBatch', `invalid request: ${reason}`));
      return;
    }
    void Promise.all(message.map((entry) => this.handleOne(entry, tickets))).then((responses) => {
      const answered = responses.filter((response) => response !== null);
      this.sendAndSettle(answered.length > 0 ? answered : null, tickets);
    });
  }

  private async handleOne(value: unknown, tickets: Tickets): Promise<object | null> {
    const checked = checkRequest(value);
    if (!checked.ok) {
      this.hooks.onProtocolError();
      return checked.response;
    }
    const request = checked.request;
    if (request.method === CANCEL_METHOD) {
      this.cancel(request.params?.id);
      return null;
    }
    if (!this.hooks.accepting()) return request.id === undefined ? null : shuttingDown(request.id);
    return this.run(request, tickets);
  }

  private async run(request: RequestEnvelope, tickets: Tickets): Promise<object | null> {
    const key = request.id ?? Symbol('notification');
    if (this.inFlight.has(key)) {
      // A second request under a running id could not be told apart, cancelled or waited for.
      this.hooks.onProtocolError();
      return duplicateId(request.id ?? null);
    }
    const controller = new AbortController();
    this.inFlight.set(key, controller);
    this.methods.set(key, request.method);
    this.applyBackpressure();
    this.hooks.onRequest();
    const ctx: CallContext = { signal: controller.signal, connection: this };
    let ticket: Ticket | undefined;
    try {
      if (this.hooks.budget.isHeavy(request.method)) {
        try {
          ticket = await this.hooks.budget.admit(this, request.method, controller.signal);
        } catch (error) {
          if (!(error instanceof RpcError) || request.id === undefined) return null;
          return { jsonrpc: '2.0', id: request.id, error: error.toJSON() };
        }
        tickets.push(ticket);
      }
      const response = await this.hooks.dispatcher.dispatch(request, ctx);
      if (controller.signal.aborted && request.id !== undefined) return cancelled(request.id);
      return response;
    } finally {
      ticket?.finished();
      this.inFlight.delete(key);
      this.methods.delete(key);
      this.applyBackpressure();
    }
  }

  private sendAndSettle(response: object | null, tickets: Tickets): void {
    this.unanswered--;
    if (response !== null) this.send(response);
    // The answer now counts as queued bytes (or is gone with the connection): its reservation is free.
    for (const ticket of tickets) ticket.sent();
    this.endWhenIdle();
  }

  private cancel(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.inFlight.get(id)?.abort();
  }

  /** Reads nothing more while too many requests run or while the client leaves its answers unread. */
  private applyBackpressure(): void {
    const shouldPause =
      this.inFlight.size >= MAX_IN_FLIGHT_PER_CONNECTION || this.socket.writableLength > CONNECTION_SHARE_BYTES;
    if (shouldPause === this.paused || this.closed || this.ending) return;
    this.paused = shouldPause;
    if (shouldPause) this.socket.pause();
    else this.socket.resume();
  }

  private send(message: object): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    if (this.socket.writableLength > MAX_UNREAD_RESPONSE_BYTES) {
      this.hooks.log.warn('client is not reading its responses; disconnecting it', { connection: this.id });
      this.socket.destroy();
      return;
    }
    const text = serializeWithin(message, this.hooks.log, this.id);
    if (text !== null) {
      this.written += text.length + 1;
      // Two writes: `${text}\n` would copy a 16 MiB answer once more, and a corked writev would
      // keep the string alive beside the socket's own copy of it until the client reads it.
      this.socket.write(text);
      this.socket.write('\n');
      this.armStall();
      this.applyBackpressure();
    }
    this.armIdle();
  }

  private onDrained(): void {
    this.applyBackpressure();
    this.hooks.budget.wake();
  }

  /**
   * A client that reads slowly gets its answers at its pace; one that reads nothing for
   * `stallMs` while answers wait is cut off, so that its answers stop holding the budget.
   */
  private armStall(): void {
    if (this.stallTimer !== undefined || this.socket.writableLength === 0) return;
    const readBefore = this.written - this.socket.writableLength;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (this.closed || this.socket.writableLength === 0) return;
      if (this.written - this.socket.writableLength > readBefore) {
        this.armStall();
        return;
      }
      this.hooks.log.warn('client read none of its answers in time; disconnecting it', {
        connection: this.id,
        queuedBytes: this.socket.writableLength,
        stallMs: this.hooks.limits.stallMs,
      });
      this.socket.destroy();
    }, this.hooks.limits.stallMs);
    this.stallTimer.unref();
  }

  private onClosed(): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.frameTimer);
    clearTimeout(this.stallTimer);
    this.cancelAll();
    this.topics.clear();
    // Its waiting requests go at once; those running give their slots back as they stop.
    this.hooks.budget.leave(this);
    this.hooks.budget.wake();
    this.hooks.onClose(this);
  }
}
