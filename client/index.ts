/**
 * `memd/client`: the typed client library. Imports only `shared/` and Node built-ins, so that a
 * host process pays for a socket, not for the daemon's dependencies.
 */
import { Methods, type ParamsOf, type ResultOf } from '../shared/protocol/methods.js';
import { type ClientOptions, MemdClient } from './client.js';

type MethodTable = typeof Methods;
type ParamArgs<P> = Record<string, never> extends P ? [params?: P] : [params: P];

/** One typed function per protocol method, named after its descriptor: `client.daemonStatus()`. */
export type TypedMethods = {
  [K in keyof MethodTable]: (...args: ParamArgs<ParamsOf<MethodTable[K]>>) => Promise<ResultOf<MethodTable[K]>>;
};

export type Client = MemdClient & TypedMethods;

export function createClient(options: ClientOptions = {}): Client {
  const client = new MemdClient(options);
  const typed: Record<string, (params?: object) => Promise<unknown>> = {};
  for (const [key, descriptor] of Object.entries(Methods)) {
    typed[key] = (params = {}) => client.call(descriptor, params as never);
  }
  return Object.assign(client, typed) as unknown as Client;
}

export type * from '../shared/protocol/compaction.js';
export type * from '../shared/protocol/daemon.js';
export { ErrorCode, RpcError, type RpcErrorData } from '../shared/protocol/errors.js';
export { EVENT_TOPICS, type EventPayloads, type EventTopic } from '../shared/protocol/events.js';
export type * from '../shared/protocol/ingest.js';
export type * from '../shared/protocol/memory.js';
export { type MethodName, Methods, type ParamsOf, type ResultOf } from '../shared/protocol/methods.js';
export type * from '../shared/protocol/sessions.js';
export type * from '../shared/protocol/tokens.js';
export { type ClientOptions, DEFAULT_TIMEOUT_MS, MemdClient } from './client.js';
export { ClientError, type ClientErrorKind } from './errors.js';
export { SEARCH_FOLLOW_MS, searchFilled } from './search-pages.js';
