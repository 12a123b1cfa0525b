/**
 * `memctl search QUERY …` while the daemon runs (issue 34): one exchange with it (quick/call.ts),
 * validated and printed as the command prints it (search-page.ts), without the client library or
 * the command line. `--context`, a page its time budget cut (the command follows it), no daemon to
 * ask or an error to explain go to the full command.
 */

import { answerOrNull } from '../../../shared/protocol/schema.js';
import { askingSessionOf, searchQueryResultSchema } from '../../../shared/protocol/search.js';
import { createOutput } from '../output.js';
import { parseSearchArgs, searchPage, searchParams } from '../search-page.js';
import { quickCalls, socketPathOf } from './call.js';
import { printLines } from './print.js';

/** The daemon's own deadline for a search is 2 s (searchDeadlineMs): a little more, then the full command. */
const SEARCH_QUICK_DEADLINE_MS = 3_000;

/** Prints the page and returns 0, or null when the full command must run instead. */
export async function runSearchQuick(argv: readonly string[], env = process.env): Promise<number | null> {
  const json = argv.includes('--json');
  const words = argv.filter((arg) => arg !== '--json');
  const args = parseSearchArgs(words);
  if (typeof args === 'string' || args.context !== undefined) return null;
  const [answer] = await quickCalls(
    await socketPathOf(env),
    [{ method: 'search.query', params: searchParams(args, askingSessionOf(env)) }],
    SEARCH_QUICK_DEADLINE_MS,
  );
  if (answer?.ok !== true) return null;
  const result = answerOrNull(searchQueryResultSchema, answer.result, 'search.query');
  if (result === null || result.partial === true) return null;
  printLines(
    json ? [JSON.stringify(answer.result)] : searchPage(result, words, args.cursor !== undefined, createOutput(env)),
  );
  return 0;
}
