/**
 * `memctl usage` while the daemon runs: one exchange with it (quick/call.ts), without the client
 * library or the command line, so that the report prints in little more than node's own start-up
 * (issue 18: at most 1.5 × `node -e 0`). Anything else (no daemon to ask, an error to explain,
 * arguments that are wrong) goes to the full command, which starts the daemon and says why.
 */
import { createOutput } from '../output.js';
import { asUsageReport, parseUsageArgs, reportParams } from '../usage-args.js';
import { renderUsage } from '../views/usage-report.js';
import { quickCall, socketPathOf } from './call.js';
import { printLines } from './print.js';

/** A report reads a few thousand rows; a daemon slower than this (a long backfill commit) gets the full client's patience instead. */
const USAGE_QUICK_DEADLINE_MS = 2_000;

/** Prints the report and returns 0, or null when the full command must run instead. */
export async function runUsageQuick(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | null> {
  const args = parseUsageArgs(argv, env);
  if (typeof args === 'string') return null;
  const answer = await quickCall(
    await socketPathOf(env),
    'usage.report',
    { ...reportParams(args) },
    USAGE_QUICK_DEADLINE_MS,
  );
  const report = answer?.ok === true ? asUsageReport(answer.result) : null;
  if (report === null) return null;
  printLines(args.json ? [JSON.stringify(report)] : renderUsage(report, createOutput(env), process.stdout.columns));
  return 0;
}
