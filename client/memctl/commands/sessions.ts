/** `memctl sessions [--json]`: every session, most recent first, with its context bar. */
import { UsageError, type Command } from '../context.js';
import { renderSessionTable } from '../sessions-view.js';

export const sessions: Command = async (ctx) => {
  if (ctx.args.length > 0) throw new UsageError('sessions takes no arguments');
  const client = ctx.client();
  try {
    const result = await client.sessionsList();
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of renderSessionTable(result.sessions, ctx.out)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
