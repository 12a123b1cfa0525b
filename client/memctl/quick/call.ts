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

/**
 * `method(params)` on the daemon at `socketPath`, or null when none answers it within `deadlineMs`.
 * `notifications` go in the same write, before the request: a daemon that does not know one
 * ignores it (JSON-RPC answers no notification), so the request is answered as before.
 */
export function quickCall(
  socketPath: string,
  method: string,
  params: Record<string, unknown>,
  deadlineMs: number,
  notifications: readonly QuickNotification[] = [],
): Promise<QuickAnswer | null> {
  return new Promise((resolve) => {
    let settled = false;
    let buffered = '';
    // Answers may come in either order: the daemon serves requests concurrently.
    let version: boolean | undefined;
    let answer: QuickAnswer | undefined;
    const socket = connect(socketPath);
    const finish = (answer: QuickAnswer | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(null), deadlineMs);
    socket.setEncoding('utf8');
    socket.on('error', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('connect', () => {
      const version = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'daemon.version', params: {} });
      const request = JSON.stringify({ jsonrpc: '2.0', id: 2, method, params });
      const told = notifications.map((told) => `${JSON.stringify({ jsonrpc: '2.0', ...told })}\n`).join('');
      socket.write(`${version}\n${told}${request}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_ANSWER_BYTES) return finish(null);
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          return finish(null);
        }
        if (!isRecord(message)) return finish(null);
        if (message.id === 1) version = isRecord(message.result) && message.result.protocol === PROTOCOL;
        else if (message.id === 2) answer = answerOf(message);
        if (version === false) return finish(null);
        if (version === true && answer !== undefined) return finish(answer);
      }
    });
  });
}
