/**
 * `memctl hook session-start` for the sources memd gives nothing to (`startup`, `clear` by
 * default): only the check that memd runs, started in the background when nothing answers
 * (daemon-start.ts), without loading the command line, the client library or the handoff code,
 * so that the hook adds little more than node's own start (issue 29). The sources memd answers
 * (`compact`, `resume`, or MEMD_SESSION_START_SOURCES) go on to commands/hook.ts, which gets the
 * same stdin object (quick/stdin.ts reads it once).
 */
import { homedir } from 'node:os';
import { resolvePaths } from '../../../shared/paths.js';
import { startUnlessRunning } from '../daemon-start.js';
import { readJsonObject, text } from './stdin.js';

/** A hook's stdin is one small JSON object; a writer that never closes it is not waited for. */
export const HOOK_STDIN_DEADLINE_MS = 2_000;
/** The SessionStart sources memd adds context to: after a compaction, and a resumed session. */
const DEFAULT_SESSION_START_SOURCES = ['compact', 'resume'];

export function sessionStartSources(env: NodeJS.ProcessEnv): string[] {
  const configured = env.MEMD_SESSION_START_SOURCES;
  return configured === undefined
    ? DEFAULT_SESSION_START_SOURCES
    : configured
        .split(',')
        .map((source) => source.trim())
        .filter((source) => source !== '');
}

/**
 * `MEMD_NO_AUTOSTART` (any value but empty or `0`): no memctl command, hook or MCP server starts a
 * daemon, as with `--no-autostart`; it reaches the commands Claude Code runs through its `env`.
 */
export function autostartDisabledBy(env: NodeJS.ProcessEnv): boolean {
  const value = env.MEMD_NO_AUTOSTART;
  return value !== undefined && value !== '' && value !== '0';
}

/** True when the hook is done; false when commands/hook.ts is to run it (a source memd answers, or no input). */
export async function runSessionStartQuick(): Promise<boolean> {
  const input = await readJsonObject(HOOK_STDIN_DEADLINE_MS);
  const source = text(input, 'source');
  if (input === null || source === null || sessionStartSources(process.env).includes(source)) return false;
  try {
    const home = process.env.HOME !== undefined && process.env.HOME !== '' ? process.env.HOME : homedir();
    await startUnlessRunning(resolvePaths(process.env, home), process.env, !autostartDisabledBy(process.env));
  } catch {
    // Fail open: the session starts whatever happened here.
  }
  process.exitCode = 0;
  return true;
}
