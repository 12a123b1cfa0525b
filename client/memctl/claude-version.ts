/**
 * The running Claude Code's version, from `claude --version` (`2.1.197 (Claude Code)`), for
 * `memctl install-hooks` and `memctl doctor`: the hooks memd installs are the ones that version knows
 * (shared/hooks/settings.ts, memdHooksFor). Null when there is no `claude` on PATH or it says no version.
 */
import { execFileSync } from 'node:child_process';
import { parseClaudeVersion } from '../../shared/hooks/settings.js';

/** `claude --version` takes about a second here (a 245 MB binary); one that hangs is not waited for. */
const VERSION_TIMEOUT_MS = 10_000;

export function runningClaudeVersion(env: NodeJS.ProcessEnv): string | null {
  try {
    const output = execFileSync('claude', ['--version'], {
      env,
      encoding: 'utf8',
      timeout: VERSION_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const version = parseClaudeVersion(output);
    return version === null ? null : version.join('.');
  } catch {
    return null;
  }
}
