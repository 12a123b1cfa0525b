/**
 * One JSON-RPC exchange with the daemon for the commands Claude Code runs on every prompt and
 * message: connect, write `daemon.version` and the request in one write, read both answers, close.
 * No autostart, no retries, no client library (its import alone costs more than the exchange): a
 * missing, slow or foreign daemon is `null` by the deadline, and the caller falls back.
 */
import { connect } from 'node:net';
import { type Env, resolvePaths } from '../../../shared/paths.js';

/** The protocol this client speaks (DESIGN.md §3); another answer is treated as no daemon. */
const PROTOCOL = 1;
/** An answer larger than this is not a status line's: the exchange is dropped. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export type QuickAnswer = { ok: true; result: unknown } | { ok: false; kind: string; message: string };

/** The daemon's socket; node:os is loaded only when HOME is unset (it is a module to compile at each start). */
export async function socketPathOf(env: Env): Promise<string> {
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : (await import('node:os')).homedir();
  return resolvePaths(env, home).socketPath;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function answerOf(message: Record<string, unknown>): QuickAnswer {
  if (isRecord(message.error)) {
    const data = isRecord(message.error.data) ? message.error.data : {};
    return {
      ok: false,
      kind: typeof data.kind === 'string' ? data.kind : 'Error',
      message: String(message.error.message ?? ''),
    };
  }
  return { ok: true, result: message.result };
}

/** A JSON-RPC notification written ahead of the request: no answer is waited for, none comes. */
export interface QuickNotification {
  method: string;
  params: Record<string, unknown>;
}

/** A request of an exchange: its answer is waited for, `deadlineMs` (the exchange's unless given) at most. */
export interface QuickRequest {
  method: string;
  params: Record<string, unknown>;
  deadlineMs?: number;
}

/**
 * `method(params)` on the daemon at `socketPath`, or null when none answers it within `deadlineMs`.
 * `notifications` go in the same write, before the request: a daemon that does not know one
 * ignores it (JSON-RPC answers no notification), so the request is answered as before.
 */
export async function quickCall(
  socketPath: string,
  method: string,
  params: Record<string, unknown>,
  deadlineMs: number,
  notifications: readonly QuickNotification[] = [],
): Promise<QuickAnswer | null> {
  const [answer] = await quickCalls(socketPath, [{ method, params }], deadlineMs, notifications);
  return answer ?? null;
}

/**
 * Several requests in one exchange (issue 33: the turn's lock, then the prompt's recall), each
 * written once the one before it is answered, so that the daemon serves them in order; one not
 * answered within its deadline (counted from its writing) ends the exchange. Each answer, or null
 * for those not answered (all null when no daemon, or a foreign one, answers).
 */
export function quickCalls(
  socketPath: string,
  requests: readonly QuickRequest[],
  deadlineMs: number,
  notifications: readonly QuickNotification[] = [],
): Promise<(QuickAnswer | null)[]> {
  return new Promise((resolve) => {
    let settled = false;
    let buffered = '';
    let version: boolean | undefined;
    const answers: (QuickAnswer | null)[] = requests.map(() => null);
    // The request written last (ids from 2 on, in order); its timer gives up on it.
    let current = -1;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(socketPath);
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(version === true ? answers : requests.map(() => null));
    };
    const next = () => {
      clearTimeout(timer);
      current++;
      const request = requests[current];
      if (request === undefined) return finish();
      const { method, params } = request;
      // A daemon that does not answer one in time is not asked the rest.
      timer = setTimeout(finish, request.deadlineMs ?? deadlineMs);
      socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: current + 2, method, params })}\n`);
    };
    socket.setEncoding('utf8');
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      const version = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'daemon.version', params: {} });
      const told = notifications.map((told) => `${JSON.stringify({ jsonrpc: '2.0', ...told })}\n`).join('');
      socket.write(`${version}\n${told}`);
      next();
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const foreign = () => {
        version = false;
        finish();
      };
      if (buffered.length > MAX_ANSWER_BYTES) return foreign();
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          return foreign();
        }
        if (!isRecord(message)) return foreign();
        if (message.id === 1) {
          version = isRecord(message.result) && message.result.protocol === PROTOCOL;
          if (version === false) return finish();
          if (current >= 0 && answers[current] !== null) next();
        } else if (message.id === current + 2) {
          answers[current] = answerOf(message);
          // Only a daemon that spoke this protocol gets its next request.
          if (version === true) next();
        }
      }
    });
  });
}
