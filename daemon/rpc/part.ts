/**
 * The socket's side of the daemon as a part: the dispatcher over every domain's method table
 * (methods/index.ts), which resolves session-id prefixes and project names, and the server with
 * its limits from the configuration. It listens only once main.ts says so.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import { createProjectResolver } from '../sessions/project-name.js';
import { createSessionIdResolver } from '../sessions/short-id.js';
import { createDispatcher, type Dispatcher } from './dispatch.js';
import { type MethodParts, methodTables } from './methods/index.js';
import { createRpcServer, type RpcServer } from './server.js';

export interface RpcPartDeps extends MethodParts {
  db: Database.Database;
  config: Pick<
    MemdConfig,
    | 'maxConnections'
    | 'idleTimeoutMs'
    | 'frameTimeoutMs'
    | 'answerStallTimeoutMs'
    | 'maxAnswerBytes'
    | 'maxHeavyRequests'
  >;
  bus: Bus;
  log: Logger;
  /** Called as each request starts (lifecycle/loop-delay.ts samples the loop from then). */
  onRequest?: () => void;
}

export interface RpcPart {
  dispatcher: Dispatcher;
  server: RpcServer;
}

export function buildRpc(deps: RpcPartDeps): RpcPart {
  const { config, log } = deps;
  const dispatcher = createDispatcher(
    methodTables(deps),
    log,
    createSessionIdResolver(deps.db),
    createProjectResolver(deps.db),
  );
  const server = createRpcServer({
    dispatcher,
    bus: deps.bus,
    log,
    maxConnections: config.maxConnections,
    limits: { idleMs: config.idleTimeoutMs, frameMs: config.frameTimeoutMs, stallMs: config.answerStallTimeoutMs },
    budget: { maxAnswerBytes: config.maxAnswerBytes, maxHeavyRequests: config.maxHeavyRequests },
    ...(deps.onRequest === undefined ? {} : { onRequest: deps.onRequest }),
  });
  return { dispatcher, server };
}
