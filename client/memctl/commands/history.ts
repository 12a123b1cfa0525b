/** `memctl history [--project P] [--session S] [--limit N] [--before ISO] [--json]`: prompts, newest first. */
import { type Command, UsageError } from '../context.js';
import { DEFAULT_WIDTH, renderHistory } from '../views/history.js';

/** The protocol's page cap. */
const MAX_LIMIT = 100;

interface HistoryArgs {
  project?: string;
  sessionId?: string;
  limit?: number;
  before?: string;
}

function parseArgs(args: string[]): HistoryArgs {
  const parsed: HistoryArgs = {};
  const value = (flag: string, index: number): string => {
    const next = args[index];
    if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} takes a value`);
    return next;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--project') parsed.project = value(arg, ++index);
    else if (arg === '--session') parsed.sessionId = value(arg, ++index);
    else if (arg === '--before') parsed.before = value(arg, ++index);
    else if (arg === '--limit') {
      const limit = Number(value(arg, ++index));
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT)
        throw new UsageError(`--limit takes a number from 1 to ${MAX_LIMIT}`);
      parsed.limit = limit;
    } else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else throw new UsageError('history takes only options (--project, --session, --limit, --before)');
  }
  return parsed;
}

export const history: Command = async (ctx) => {
  const params = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    const result = await client.historyList(params);
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of renderHistory(result, ctx.out, process.stdout.columns ?? DEFAULT_WIDTH)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
