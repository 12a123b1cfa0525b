/**
 * `memctl sessions [--all] [--limit N] [--cursor C]`: its arguments and the page it prints, for the
 * command (commands/sessions.ts) and its quick path (quick/sessions.ts) alike. Pure.
 */
import type { SessionRowList } from '../../shared/protocol/sessions.js';
import type { Output } from './output.js';
import { renderSessionTable } from './views/sessions.js';

/** The most recent sessions `memctl status` shows under the daemon's status; `memctl sessions` lists all. */
export const STATUS_SESSION_ROWS = 10;
/** What one screen shows; `--limit` asks for more (the daemon allows up to 10,000 a page). */
const DEFAULT_ROWS = 50;
const MAX_ROWS = 10_000;

export interface SessionsArgs {
  all: boolean;
  limit: number;
  cursor: string | undefined;
}

/** The arguments, or what is wrong with them. */
export function parseSessionsArgs(args: readonly string[]): SessionsArgs | string {
  const parsed: SessionsArgs = { all: false, limit: DEFAULT_ROWS, cursor: undefined };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const next = args[i + 1];
    if (arg === '--all') parsed.all = true;
    else if (arg === '--limit' || arg === '--cursor') {
      if (next === undefined || next.startsWith('--')) return `${arg} takes a value`;
      i += 1;
      if (arg === '--cursor') parsed.cursor = next;
      else {
        const limit = Number(next);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ROWS)
          return `--limit takes a whole number from 1 to ${MAX_ROWS}`;
        parsed.limit = limit;
      }
    } else return `sessions takes only --all, --limit N and --cursor C (got ${arg})`;
  }
  return parsed;
}

/** `sessions.list`'s params for the arguments. */
export function sessionsParams(args: SessionsArgs): { limit: number; all: boolean; cursor?: string } {
  return { limit: args.limit, all: args.all, ...(args.cursor === undefined ? {} : { cursor: args.cursor }) };
}

/** The table, then how to see the next page and what is not listed. */
export function sessionsPage(result: SessionRowList, args: SessionsArgs, out: Output): string[] {
  const lines = renderSessionTable(result.sessions, out);
  if (result.nextCursor !== null) {
    const of = result.total === null ? '' : ` of ${result.total}`;
    lines.push(
      out.dim(
        `${result.sessions.length}${of} shown; next page: memctl sessions --cursor ${result.nextCursor}${args.all ? ' --all' : ''}${args.limit === DEFAULT_ROWS ? '' : ` --limit ${args.limit}`}`,
      ),
    );
  }
  if (result.hidden > 0)
    lines.push(out.dim(`${result.hidden} sessions whose files are gone or empty are not listed (--all lists them)`));
  return lines;
}
