/** `memctl status [SESSION] [--json]` */
import { type Command, UsageError } from '../context.js';
import { renderSessionTable } from '../views/sessions.js';
import { renderStatus } from '../views/status.js';

/** The most recent sessions shown under the daemon's status; `memctl sessions` lists all. */
const STATUS_SESSION_ROWS = 10;

export const status: Command = async (ctx) => {
  if (ctx.args.length > 1) throw new UsageError('status takes at most one SESSION');
  const client = ctx.client();
  try {
    const sessionId = ctx.args[0];
    if (sessionId !== undefined) {
      const [session, hooks] = await Promise.all([
        client.sessionsGet({ sessionId }),
        client.handoffStatus({ sessionId }),
      ]);
      // Everything the text view shows: the session and the hooks' records.
      if (ctx.json) ctx.out.out(JSON.stringify({ ...session, handoff: hooks }));
      else {
        const { renderSessionDetail, renderHookRecords } = await import('../views/session-detail.js');
        for (const line of [...renderSessionDetail(session, ctx.out), ...renderHookRecords(hooks, ctx.out)])
          ctx.out.out(line);
      }
      return 0;
    }
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
