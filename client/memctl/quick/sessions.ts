/**
 * `memctl sessions` and `memctl status` while the daemon runs (issue 34): one exchange with it
 * (quick/call.ts), validated and printed by the commands' own views, without the client library or
 * the command line. Anything else (no daemon to ask, an error to explain, arguments the quick path
 * does not take, an answer too big for one exchange) goes to the full command, which says why.
 */
import { daemonStatusSchema } from '../../../shared/protocol/daemon.js';
import { answerOrNull } from '../../../shared/protocol/schema.js';
import { sessionListSchema, sessionRowListSchema } from '../../../shared/protocol/sessions.js';
import { createOutput } from '../output.js';
import { parseSessionsArgs, STATUS_SESSION_ROWS, sessionsPage, sessionsParams } from '../sessions-page.js';
import { renderSessionTable } from '../views/sessions.js';
import { renderStatus } from '../views/status.js';
import { quickCalls, socketPathOf } from './call.js';
import { printLines } from './print.js';

/** A daemon slower than this (a long backfill commit) gets the full client's patience instead. */
const QUICK_DEADLINE_MS = 2_000;

/** `--json` taken out: whether it was there, and the rest. */
function jsonFlag(argv: readonly string[]): { json: boolean; args: string[] } {
  return { json: argv.includes('--json'), args: argv.filter((arg) => arg !== '--json') };
}

/** `memctl sessions …`: prints the page and returns 0, or null when the full command must run. */
export async function runSessionsQuick(argv: readonly string[], env = process.env): Promise<number | null> {
  const { json, args: rest } = jsonFlag(argv);
  const args = parseSessionsArgs(rest);
  if (typeof args === 'string') return null;
  const [answer] = await quickCalls(
    await socketPathOf(env),
    [{ method: 'sessions.list', params: sessionsParams(args) }],
    QUICK_DEADLINE_MS,
  );
  if (answer?.ok !== true) return null;
  // The table reads only its columns: only they are checked; JSON is the whole answer, all of it checked.
  if (json) {
    if (answerOrNull(sessionListSchema, answer.result, 'sessions.list') === null) return null;
    printLines([JSON.stringify(answer.result)]);
    return 0;
  }
  const list = answerOrNull(sessionRowListSchema, answer.result, 'sessions.list');
  if (list === null) return null;
  printLines(sessionsPage(list, args, createOutput(env)));
  return 0;
}

/** `memctl status` (the daemon's, not a session's): prints it and returns 0, or null for the full command. */
export async function runStatusQuick(argv: readonly string[], env = process.env): Promise<number | null> {
  const { json, args } = jsonFlag(argv);
  if (args.length > 0) return null;
  const [status, page] = await quickCalls(
    await socketPathOf(env),
    [
      { method: 'daemon.status', params: {} },
      ...(json ? [] : [{ method: 'sessions.list', params: { limit: STATUS_SESSION_ROWS } }]),
    ],
    QUICK_DEADLINE_MS,
  );
  if (status?.ok !== true) return null;
  const daemon = answerOrNull(daemonStatusSchema, status.result, 'daemon.status');
  if (daemon === null) return null;
  if (json) {
    printLines([JSON.stringify(status.result)]);
    return 0;
  }
  const list = page?.ok === true ? answerOrNull(sessionRowListSchema, page.result, 'sessions.list') : null;
  if (list === null) return null;
  const out = createOutput(env);
  printLines([...renderStatus(daemon, out), '', ...renderSessionTable(list.sessions, out)]);
  return 0;
}
