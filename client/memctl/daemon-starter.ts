/**
 * Who brings memd up when it is down, in the words the installers and doctor use: its systemd
 * socket unit, else memd's SessionStart hook, else the user.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { memdHookCommands, memdHookStates } from '../../shared/hooks/settings.js';
import { claudeSettingsPath, type MemdPaths, projectSettingsPath, resolvePaths } from '../../shared/paths.js';
import { memctlCommandPath } from '../install-paths.js';
import { autostartDisabledBy, type CommandContext } from './context.js';
import { probeDaemon } from './daemon-start.js';
import { projectRoot } from './settings-file.js';

export type Starter = 'systemd' | 'session-start-hook' | 'manual';

function sessionStartHookIn(path: string): boolean {
  try {
    const states = memdHookStates(
      JSON.parse(readFileSync(path, 'utf8')),
      memdHookCommands(process.execPath, memctlCommandPath()),
    );
    return states.some((entry) => entry.spec.name === 'session-start' && entry.state !== 'missing');
  } catch {
    return false;
  }
}

/** Who brings memd up when it is down: its systemd socket unit, else memd's SessionStart hook, else the user. */
export function starterOf(paths: MemdPaths, env: NodeJS.ProcessEnv): Starter {
  if (existsSync(join(paths.systemdUserDir, 'memd.socket'))) return 'systemd';
  if (autostartDisabledBy(env)) return 'manual';
  const hooked =
    sessionStartHookIn(claudeSettingsPath(paths.claudeRoot)) ||
    sessionStartHookIn(projectSettingsPath(projectRoot(env)));
  return hooked ? 'session-start-hook' : 'manual';
}

/** One sentence for a user whose memd is not running: how it will be started, and how to start it now. */
export function startAdvice(starter: Starter): string {
  switch (starter) {
    case 'systemd':
      return 'its systemd socket unit is installed: systemctl --user enable --now memd.socket starts it now and at every login';
    case 'session-start-hook':
      return "Claude Code's SessionStart hook starts it when the next session starts; memctl start starts it now";
    case 'manual':
      return 'nothing will start it by itself: run memctl start (memctl install-hooks has Claude Code start it, memctl install-service has systemd do so)';
  }
}

/**
 * The installers' closing line when no memd answers (null when one does): the hooks, status line
 * and MCP server all work without it, but show and keep nothing until it runs.
 */
export async function notRunningNote(paths: MemdPaths, env: NodeJS.ProcessEnv): Promise<string | null> {
  const probe = await probeDaemon(paths.socketPath);
  if (probe.state === 'answers') return null;
  const why = probe.state === 'unusable' ? `memd does not answer (${probe.reason})` : 'memd is not running';
  return `${why}; ${startAdvice(starterOf(paths, env))}.`;
}

/**
 * After an install: what was installed shows nothing until memd runs (the status line says
 * `no memd`, hooks fall back, MCP tools fail), so a user whose memd is down is told who starts it.
 * Also when nothing changed: running an installer again is how users check their set-up.
 */
export async function sayIfNotRunning(
  ctx: CommandContext,
  options: { uninstall: boolean; dryRun: boolean },
): Promise<void> {
  if (ctx.json || options.uninstall || options.dryRun) return;
  // From the environment, not a client: installing must not need (or load) the client library.
  const home = ctx.env.HOME !== undefined && ctx.env.HOME !== '' ? ctx.env.HOME : homedir();
  const note = await notRunningNote(resolvePaths(ctx.env, home), ctx.env);
  if (note !== null) ctx.out.out(note);
}
