/** `memctl sessions [--all] [--limit N] [--cursor C] [--json]`: one page of sessions, most recent first. */
import { parseAnswer } from '../../../shared/protocol/schema.js';
import { sessionListSchema } from '../../../shared/protocol/sessions.js';
import { type Command, UsageError } from '../context.js';
import { parseSessionsArgs, sessionsPage, sessionsParams } from '../sessions-page.js';

export const sessions: Command = async (ctx) => {
  const args = parseSessionsArgs(ctx.args);
  if (typeof args === 'string') throw new UsageError(args);
  const client = ctx.client();
  try {
    const answer = await client.sessionsList(sessionsParams(args));
    if (ctx.json) {
      ctx.out.out(JSON.stringify(answer));
      return 0;
    }
    for (const line of sessionsPage(parseAnswer(sessionListSchema, answer, 'sessions.list'), args, ctx.out))
      ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
