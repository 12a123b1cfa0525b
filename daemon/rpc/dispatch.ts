/**
 * Method dispatch on top of json-rpc-2.0: params are validated against the method's schema,
 * handlers throw typed RpcErrors, and anything else becomes InternalError with a plain message
 * (the stack goes to the log, never over the wire).
 */
import { createJSONRPCErrorResponse, type JSONRPCResponse, JSONRPCServer } from 'json-rpc-2.0';
import type { RequestEnvelope } from '../../shared/protocol/envelope.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { EventTopic } from '../../shared/protocol/events.js';
import { METHOD_BY_NAME, type MethodDescriptor } from '../../shared/protocol/methods.js';
import type { Logger } from '../log/logger.js';
import { osErrorToRpc } from './os-errors.js';

export interface ConnectionHandle {
  readonly id: number;
  subscribe(topics: readonly EventTopic[]): string[];
  unsubscribe(topics: readonly EventTopic[]): string[];
}

export interface CallContext {
  /** Aborted when the client cancels the request or disconnects, or the daemon stops. */
  readonly signal: AbortSignal;
  readonly connection: ConnectionHandle;
}

export type Handler<P, R> = (params: P, ctx: CallContext) => R | Promise<R>;

export interface MethodHandler {
  readonly descriptor: MethodDescriptor<unknown, unknown>;
  readonly run: Handler<unknown, unknown>;
}

export function handle<P, R>(descriptor: MethodDescriptor<P, R>, run: Handler<P, R>): MethodHandler {
  return { descriptor: descriptor as MethodDescriptor<unknown, unknown>, run: run as Handler<unknown, unknown> };
}

export interface Dispatcher {
  dispatch(request: RequestEnvelope, ctx: CallContext): PromiseLike<JSONRPCResponse | null>;
  /** The names of the methods served so far. */
  readonly methods: string[];
  /** Serves more methods (the daemon's own need the server and shutdown, built before them). */
  add(handlers: readonly MethodHandler[]): void;
}

/** A request past this is named in the log: what a user who saw memd stall asks for first. */
export const SLOW_REQUEST_MS = 500;

function cancelledError(): RpcError {
  return new RpcError(ErrorCode.Cancelled, 'Cancelled', 'the request was cancelled');
}

/**
 * Turns a session id as a user typed it (the 8-character prefix memctl prints, or any unique
 * prefix) into the full id; throws AmbiguousSessionId when several sessions share the prefix and
 * returns what it got when none does (the handler then reports NotFound as it would).
 */
export type SessionIdResolver = (sessionId: string) => string;

/** Every method that names a session does so in `params.sessionId`. */
function withResolvedSession(params: unknown, resolve: SessionIdResolver | undefined): unknown {
  if (resolve === undefined || typeof params !== 'object' || params === null) return params;
  const { sessionId } = params as { sessionId?: unknown };
  if (typeof sessionId !== 'string') return params;
  const full = resolve(sessionId);
  return full === sessionId ? params : { ...params, sessionId: full };
}

/** Turns a project as a user typed it (the name tables show, a cwd, a folder) into its folder. */
export type ProjectResolver = (project: string) => string;

/** The methods whose `params.project` names an indexed project folder (sessions.list and history.list match a cwd as given). */
const PROJECT_METHODS: ReadonlySet<string> = new Set(['search.query', 'usage.report']);
/** memdir methods reach a folder on disk that may hold no indexed session: a cwd or a folder name the index lacks is passed on. */
const MEMDIR_METHODS: ReadonlySet<string> = new Set(['memdir.list', 'memdir.read', 'memdir.write', 'memdir.delete']);

/** A project as tables show it: path components without `.` or `..`, not a folder name (`-home-…`) or a cwd. */
const SHOWN_NAME = /^(?![-/])(?!.*(?:^|\/)\.{1,2}(?:\/|$))[\w.-]+(?:\/[\w.-]+)*$/;

function withResolvedProject(method: string, params: unknown, resolve: ProjectResolver | undefined): unknown {
  if (resolve === undefined || typeof params !== 'object' || params === null) return params;
  const memdir = MEMDIR_METHODS.has(method);
  if (!memdir && !PROJECT_METHODS.has(method)) return params;
  const { project } = params as { project?: unknown };
  if (typeof project !== 'string') return params;
  let folder: string;
  try {
    folder = resolve(project);
  } catch (error) {
    // memdir checks the rest itself (its folder on disk, PathRejected for `../..`): only a name
    // as tables show it (`shop`, `acme/api`) is refused here, with the candidates.
    if (memdir && error instanceof RpcError && error.kind === 'UnknownProject' && !SHOWN_NAME.test(project))
      return params;
    throw error;
  }
  return folder === project ? params : { ...params, project: folder };
}

export function createDispatcher(
  handlers: readonly MethodHandler[],
  log: Logger,
  resolveSessionId?: SessionIdResolver,
  resolveProject?: ProjectResolver,
): Dispatcher {
  const server = new JSONRPCServer<CallContext>({
    errorListener: (message, data) => {
      if (data instanceof RpcError) return;
      log.error('handler failed', { detail: message, error: data });
    },
  });
  server.mapErrorToJSONRPCErrorResponse = (id, error: unknown) => {
    if (error instanceof RpcError) return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
    return createJSONRPCErrorResponse(id, ErrorCode.InternalError, 'internal error; the daemon log has the details', {
      kind: 'InternalError',
    });
  };
  server.handleMethodNotFound = async (request) => {
    if (request.id === undefined) return null;
    const known = METHOD_BY_NAME.has(request.method);
    const message = known
      ? `method "${request.method}" is part of the protocol but not served by this daemon version`
      : `unknown method "${request.method}"`;
    return createJSONRPCErrorResponse(request.id, ErrorCode.MethodNotFound, message, {
      kind: 'MethodNotFound',
      method: request.method,
    });
  };
  const names: string[] = [];
  const add = (more: readonly MethodHandler[]) => {
    for (const handler of more) addMethod(handler);
  };
  const addMethod = ({ descriptor, run }: MethodHandler) => {
    names.push(descriptor.name);
    server.addMethod(descriptor.name, async (params: unknown, ctx: CallContext) => {
      const parsed = withResolvedProject(
        descriptor.name,
        withResolvedSession(descriptor.params.parse(params ?? {}, 'params'), resolveSessionId),
        resolveProject,
      );
      const started = performance.now();
      try {
        return await run(parsed, ctx);
      } catch (error) {
        // A handler that stops because its caller cancelled or left has not failed: answer
        // Cancelled instead of logging an InternalError with a stack for every cancel.
        if (ctx.signal.aborted && !(error instanceof RpcError)) throw cancelledError();
        const mapped = osErrorToRpc(error);
        if (mapped === undefined) throw error;
        log.warn('a request failed on the file system', {
          method: descriptor.name,
          kind: mapped.kind,
          message: mapped.message,
        });
        throw mapped;
      } finally {
        // Long async waits (a model, git) count too: the line says which method, not why.
        const ms = performance.now() - started;
        if (ms > SLOW_REQUEST_MS) log.warn('a request took long', { method: descriptor.name, ms: Math.round(ms) });
      }
    });
  };
  add(handlers);
  return {
    get methods() {
      return [...names];
    },
    add,
    dispatch: (request, ctx) => server.receive(request, ctx),
  };
}
