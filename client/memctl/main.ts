#!/usr/bin/env node
/**
 * memctl's entry. Claude Code runs two of its commands on every prompt and after every message
 * (`hook turn-start|turn-end`, `statusline`), and SessionStart at every new session (`startup`): those load only their own small module (quick/),
 * not the command line, the client library or its autostart, so that they start in little more
 * than node's own time. The first two come from one CommonJS file (quick.cjs, see quick/run.ts),
 * which bin/memctl.cjs loads without this module. `usage`, `status`, `sessions` and `search` come from
 * their own (reports.cjs) while a daemon answers (issues 18 and 34). Everything else goes to cli.ts.
 */
import { createRequire } from 'node:module';

const [command, subcommand, ...rest] = process.argv.slice(2);
const asksForHelp = process.argv.includes('--help') || process.argv.includes('-h');

/** quick/run.ts as `npm run build` bundles it (scripts/bundle-quick.mjs). */
function quickBundle(): typeof import('./quick/run.js') {
  return createRequire(import.meta.url)('./quick.cjs');
}

/** quick/reports-run.ts as `npm run build` bundles it: the reports reports.cjs prints while a daemon answers (issue 34). */
function reportsBundle(): typeof import('./quick/reports-run.js') {
  return createRequire(import.meta.url)('./reports.cjs');
}

const REPORTS = new Set(['usage', 'status', 'sessions', 'search']);
/** What quick.cjs may run; SessionStart's own quick path is below, not in the bundle. */
const triesQuick = command === 'statusline' || (command === 'hook' && subcommand !== 'session-start');

if (triesQuick && (await quickBundle().runQuick(process.argv.slice(2)))) {
  // Run: the status line or a turn hook.
} else if (command === 'hook' && subcommand === 'session-start' && rest.length === 0 && !asksForHelp) {
  // A new session: only memd's start, when nothing answers; a compacted or resumed one goes on to cli.ts.
  if (!(await (await import('./quick/session-start.js')).runSessionStartQuick())) await import('./cli.js');
} else if (REPORTS.has(command ?? '') && !asksForHelp) {
  // What the quick path cannot do (no daemon to ask, an error to explain) the full command does.
  const code = await reportsBundle().runReportQuick(process.argv.slice(2));
  if (code === null) await import('./cli.js');
  else process.exitCode = code;
} else {
  await import('./cli.js');
}
