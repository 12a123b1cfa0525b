/**
 * The commands Claude Code runs after every assistant message and on every prompt: `statusline`,
 * the turn hooks (`hook turn-start|turn-end|turn-failed|instructions-loaded`) and, after a failed
 * tool call, `hook tool-failed` (issue 33). bin/memctl.cjs and
 * main.ts run them from `dist/client/memctl/quick.cjs`, this module and everything it loads built
 * into one CommonJS file by `npm run build` (scripts/bundle-quick.mjs): loading it spares node's ES
 * module loader and a file read and compile per module, more than half of what the status line
 * added to node's own start (1.35× → 1.15× `node -e 0` in CPU time, issue 31).
 * Each command's module is loaded only when that command runs.
 */

/** Whether `argv` (memctl's arguments) names one of these commands; if so, it has run. */
export async function runQuick(argv: readonly string[]): Promise<boolean> {
  const [command, subcommand, ...rest] = argv;
  if (command === 'statusline') {
    if (subcommand !== undefined) return false;
    await (await import('./statusline.js')).runStatusLine();
    return true;
  }
  if (command !== 'hook' || rest.length > 0) return false;
  if (subcommand === 'tool-failed') {
    await (await import('./recall.js')).runFailureHook();
    return true;
  }
  const turn = await import('./turn.js');
  if (!turn.isTurnHookName(subcommand)) return false;
  await turn.runTurnHook(subcommand);
  return true;
}
