/** `memctl status [SESSION] [-v] [--json]` */
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { UsageStatusResult } from '../../../shared/protocol/forecast.js';
import { usageStatusResultSchema } from '../../../shared/protocol/forecast.js';
import { answerOrNull } from '../../../shared/protocol/schema.js';
import type { Client } from '../../index.js';
import { type Command, UsageError } from '../context.js';
import { STATUS_SESSION_ROWS } from '../sessions-page.js';
import { renderSessionTable } from '../views/sessions.js';
import { renderStatus } from '../views/status.js';

const VERBOSE_FLAGS = new Set(['-v', '--verbose']);

/**
 * The session's forecasts, or null when this memd has none to give: one older than `usage.status`
 * answers MethodNotFound, and an answer this client cannot read is left out like it, so that the
 * rest of `memctl status SESSION` shows as before. Any other failure is the daemon's to report.
 */
async function forecastsOf(client: Client, sessionId: string): Promise<UsageStatusResult | null> {
  try {
    return answerOrNull(usageStatusResultSchema, await client.usageStatus({ sessionId }), 'usage.status');
  } catch (error) {
    if (error instanceof RpcError && error.code === ErrorCode.MethodNotFound) return null;
    throw error;
  }
}

export const status: Command = async (ctx) => {
  const verbose = ctx.args.some((arg) => VERBOSE_FLAGS.has(arg));
  const args = ctx.args.filter((arg) => !VERBOSE_FLAGS.has(arg));
  if (args.length > 1) throw new UsageError('status takes at most one SESSION');
  const client = ctx.client();
  try {
    const sessionId = args[0];
    if (sessionId !== undefined) {
      const [session, hooks, forecasts] = await Promise.all([
        client.sessionsGet({ sessionId }),
        client.handoffStatus({ sessionId }),
        forecastsOf(client, sessionId),
      ]);
      // Everything the text view shows: the session, the hooks' records and the forecasts with their bases.
      if (ctx.json)
        ctx.out.out(
          JSON.stringify({ ...session, handoff: hooks, ...(forecasts === null ? {} : { usageStatus: forecasts }) }),
        );
      else {
        const { renderSessionDetail, renderHookRecords } = await import('../views/session-detail.js');
        const { forecastLines } = await import('../views/forecasts.js');
        const forecast = forecasts === null ? [] : forecastLines(forecasts, ctx.out, Date.now(), verbose);
        for (const line of [
          ...renderSessionDetail(session, ctx.out, Date.now(), forecast),
          ...renderHookRecords(hooks, ctx.out),
        ])
          ctx.out.out(line);
      }
      return 0;
    }
    if (verbose) throw new UsageError('-v shows the forecasts of memctl status SESSION: name a session');
    if (ctx.json) {
      ctx.out.out(JSON.stringify(await client.daemonStatus()));
      return 0;
    }
    // Both requests go out at once: memctl status is measured against bare node start-up.
    const [result, { sessions }] = await Promise.all([
      client.daemonStatus(),
      client.sessionsList({ limit: STATUS_SESSION_ROWS }),
    ]);
    for (const line of renderStatus(result, ctx.out)) ctx.out.out(line);
    ctx.out.out('');
    for (const line of renderSessionTable(sessions, ctx.out)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
