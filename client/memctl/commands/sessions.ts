/** `memctl sessions [--all] [--limit N] [--cursor C] [--json]`: one page of sessions, most recent first. */
import { parseAnswer } from '../../../shared/protocol/schema.js';
import { sessionListSchema } from '../../../shared/protocol/sessions.js';
import { type Command, UsageError } from '../context.js';
import { renderSessionTable } from '../views/sessions.js';

/** What one screen shows; `--limit` asks for more (the daemon allows up to 10,000 a page). */
const DEFAULT_ROWS = 50;
const MAX_ROWS = 10_000;

interface SessionsArgs {
  all: boolean;
  limit: number;
  cursor: string | undefined;
}

function parseArgs(args: readonly string[]): SessionsArgs {
  const parsed: SessionsArgs = { all: false, limit: DEFAULT_ROWS, cursor: undefined };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const next = args[i + 1];
    if (arg === '--all') parsed.all = true;
    else if (arg === '--limit' || arg === '--cursor') {
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${arg} takes a value`);
      i += 1;
      if (arg === '--cursor') parsed.cursor = next;
      else {
        const limit = Number(next);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ROWS)
          throw new UsageError(`--limit takes a whole number from 1 to ${MAX_ROWS}`);
        parsed.limit = limit;
      }
    } else throw new UsageError(`sessions takes only --all, --limit N and --cursor C (got ${arg})`);
  }
  return parsed;
}

export const sessions: Command = async (ctx) => {
  const args = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    const answer = await client.sessionsList({
      limit: args.limit,
      all: args.all,
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    });
    if (ctx.json) {
      ctx.out.out(JSON.stringify(answer));
      return 0;
    }
    const result = parseAnswer(sessionListSchema, answer, 'sessions.list');
    for (const line of renderSessionTable(result.sessions, ctx.out)) ctx.out.out(line);
    const notes: string[] = [];
    if (result.nextCursor !== null) {
      const of = result.total === null ? '' : ` of ${result.total}`;
      notes.push(
        `${result.sessions.length}${of} shown; next page: memctl sessions --cursor ${result.nextCursor}${args.all ? ' --all' : ''}${args.limit === DEFAULT_ROWS ? '' : ` --limit ${args.limit}`}`,
      );
    }
    if (result.hidden > 0)
      notes.push(`${result.hidden} sessions whose files are gone or empty are not listed (--all lists them)`);
    for (const note of notes) ctx.out.out(ctx.out.dim(note));
    return 0;
  } finally {
    client.close();
  }
};
