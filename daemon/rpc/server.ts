/** The socket server: accepts connections, forwards bus events to subscribers, keeps counts. */

import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { errorEnvelope } from '../../shared/protocol/envelope.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import type { EventTopic } from '../../shared/protocol/events.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import { type BudgetLimits, type BudgetStats, createAnswerBudget } from './budget.js';
import { Connection, type ConnectionLimits } from './connection.js';
import type { Dispatcher } from './dispatch.js';

export type ListenTarget = { kind: 'path'; path: string } | { kind: 'fd'; fd: number };

export interface RpcStats {
  connections: number;
  subscriptions: number;
  requestsServed: number;
  protocolErrors: number;
  answers: BudgetStats;
}

export interface RpcServer {
  listen(target: ListenTarget): Promise<void>;
  stats(): RpcStats;
  /**
   * Stops accepting; requests already running may finish. Node unlinks a listening socket's
   * path on close, so `closeListener: false` leaves a path that now belongs to someone else
   * alone: the descriptor then closes when the process exits.
   */
  stopAccepting(closeListener?: boolean): Promise<void>;
  /** Resolves when no request is running, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean>;
  /** The requests running now, as `method (connection N)`. */
  running(): string[];
  /** Cancels what still runs and closes every connection. */
  closeConnections(): void;
}

/** How often drain() looks at the in-flight count; shutdown is rare, so a coarse poll is fine. */
const DRAIN_POLL_MS = 10;

export interface RpcServerDeps {
  dispatcher: Dispatcher;
  bus: Bus;
  log: Logger;
  /** Connections served at once; one more gets a TooManyConnections error frame and is closed. */
  maxConnections: number;
  limits: ConnectionLimits;
  /** Answer bytes and heavy requests of all connections together (config: maxAnswerBytes, maxHeavyRequests). */
  budget: BudgetLimits;
  /** Called as each request starts. */
  onRequest?: () => void;
}

export function createRpcServer(deps: RpcServerDeps): RpcServer {
  const { dispatcher, bus, log } = deps;
  const connections = new Set<Connection>();
  let nextId = 1;
  let accepting = true;
  let requestsServed = 0;
  let protocolErrors = 0;
  let server: Server | undefined;
  const budget = createAnswerBudget(deps.budget);

  let refusedLogged = false;
  const hooks = {
    dispatcher,
    log,
    limits: deps.limits,
    budget,
    accepting: () => accepting,
    onRequest: () => {
      requestsServed++;
      deps.onRequest?.();
    },
    onProtocolError: () => {
      protocolErrors++;
    },
    onClose: (connection: Connection) => {
      connections.delete(connection);
      log.debug('client disconnected', { connection: connection.id });
    },
  };

  const hasSubscribers = (topic: EventTopic) => {
    for (const connection of connections) if (connection.isSubscribed(topic)) return true;
    return false;
  };
  // Declares which topics it takes, so publishers skip events no client subscribed to.
  bus.listen((topic, payload) => {
    for (const connection of connections) connection.notify(topic, payload);
  }, hasSubscribers);

  const inFlight = () => [...connections].reduce((sum, connection) => sum + connection.inFlightCount, 0);

  return {
    listen(target) {
      const created = createServer({ allowHalfOpen: false }, (socket) => {
        if (connections.size >= deps.maxConnections) {
          // Told why, not just dropped; logged once per run of refusals.
          if (!refusedLogged)
            log.warn('refusing connections: every slot is taken', { maxConnections: deps.maxConnections });
          refusedLogged = true;
          protocolErrors++;
          socket.on('error', () => undefined);
          const refusal = errorEnvelope(
            null,
            ErrorCode.TooManyConnections,
            'TooManyConnections',
            `memd serves ${deps.maxConnections} connections at once (maxConnections) and all are taken; retry later`,
          );
          socket.end(`${JSON.stringify(refusal)}\n`);
          return;
        }
        refusedLogged = false;
        const connection = new Connection(nextId++, socket, hooks);
        connections.add(connection);
        log.debug('client connected', { connection: connection.id });
      });
      server = created;
      return new Promise((resolve, reject) => {
        created.once('error', reject);
        const onListening = () => {
          created.off('error', reject);
          created.on('error', (error) => log.error('server error', { error }));
          resolve();
        };
        if (target.kind === 'fd') {
          created.listen({ fd: target.fd }, onListening);
        } else {
          created.listen(target.path, () => {
            // listen() creates the socket with the umask; tighten before the first client can see it.
            chmodSync(target.path, 0o600);
            onListening();
          });
        }
      });
    },
    stats() {
      let subscriptions = 0;
      for (const connection of connections) subscriptions += connection.subscriptionCount;
      return { connections: connections.size, subscriptions, requestsServed, protocolErrors, answers: budget.stats() };
    },
    stopAccepting(closeListener = true) {
      accepting = false;
      // close()'s callback waits for every connection to end; stopping the listener is immediate.
      if (closeListener && server?.listening) server.close();
      return Promise.resolve();
    },
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (inFlight() > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
      return inFlight() === 0;
    },
    running() {
      return [...connections].flatMap((connection) =>
        connection.inFlightMethods.map((method) => `${method} (connection ${connection.id})`),
      );
    },
    closeConnections() {
      for (const connection of connections) {
        connection.cancelAll();
        connection.end();
      }
    },
  };
}
