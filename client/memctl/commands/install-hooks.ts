/**
 * `memctl install-hooks [--project] [--uninstall] [--dry-run]`: memd's Claude Code hooks merged
 * into settings.json, or taken out again. Nothing but memd's hooks changes, a file memd cannot
 * read as settings is never written, and the previous file is kept beside it.
 */
import { existsSync } from 'node:fs';
import {
  DEFAULT_CLAUDE_CODE_VERSION,
  type HookMergeResult,
  HookSettingsError,
  memdHookCommands,
  memdHooksFor,
  installHooks as mergeHooks,
  uninstallHooks,
} from '../../../shared/hooks/settings.js';
import { memctlCommandPath, memctlMainPath } from '../../install-paths.js';
import { runningClaudeVersion } from '../claude-version.js';
import { type Command, type CommandContext, EXIT_ERROR, EXIT_OK } from '../context.js';
import { sayIfNotRunning } from '../daemon-starter.js';
import {
  editSettings,
  type InstallOptions,
  NEW_SETTINGS_MODE,
  parseInstallOptions,
  projectRoot,
  settingsPath,
} from '../settings-file.js';

type Options = InstallOptions;

function parseOptions(args: string[]): Options {
  return parseInstallOptions('install-hooks', args);
}

function merge(settings: unknown, options: Options, version: string | null): HookMergeResult {
  if (options.uninstall) return uninstallHooks(settings);
  return mergeHooks(settings, memdHookCommands(process.execPath, memctlCommandPath()), memdHooksFor(version));
}

function printResult(
  ctx: CommandContext,
  path: string,
  result: HookMergeResult,
  backup: string | undefined,
  options: Options,
  version: string | null,
): void {
  if (ctx.json) {
    ctx.out.out(
      JSON.stringify({
        path,
        claudeCodeVersion: version,
        changed: result.changed,
        actions: result.actions,
        backup: backup ?? null,
        dryRun: options.dryRun,
      }),
    );
    return;
  }
  if (!result.changed) {
    ctx.out.out(
      options.uninstall ? `no memd hooks to remove in ${path}` : `memd's hooks are already installed in ${path}`,
    );
    return;
  }
  ctx.out.out(options.dryRun ? `would change ${path} (dry run, nothing written):` : `changed ${path}:`);
  for (const action of result.actions) ctx.out.out(`  ${action}`);
  if (!options.uninstall)
    ctx.out.out(
      version === null
        ? `(the events Claude Code ${DEFAULT_CLAUDE_CODE_VERSION} knows: no \`claude --version\` on PATH)`
        : `(the events Claude Code ${version} knows)`,
    );
  if (backup !== undefined) ctx.out.out(`backup of the previous file: ${backup}`);
  // Claude Code reads its hooks when a session starts and asks for a review of outside edits.
  if (!options.dryRun)
    ctx.out.out('Sessions already running pick this up after a restart, or once you review it in /hooks.');
}

export const installHooks: Command = async (ctx) => {
  const options = parseOptions(ctx.args);
  const path = settingsPath(ctx.env, options.project);
  // An event the running version does not know may make it refuse the whole settings file.
  const version = options.uninstall ? null : runningClaudeVersion(ctx.env);
  let outcome: Awaited<ReturnType<typeof editSettings<HookMergeResult>>>;
  try {
    outcome = await editSettings(path, {
      merge: (settings) => merge(settings, options, version),
      settingsOf: (result) => result.settings,
      newFileMode: NEW_SETTINGS_MODE,
      dryRun: options.dryRun,
      projectRoot: options.project ? projectRoot(ctx.env) : undefined,
    });
  } catch (error) {
    if (!(error instanceof HookSettingsError)) throw error;
    ctx.out.err(
      `memctl: ${path}: ${error.message}; memd edits only settings in Claude Code's format, nothing was changed`,
    );
    return EXIT_ERROR;
  }
  if ('refused' in outcome) {
    ctx.out.err(`memctl: ${outcome.refused}`);
    return EXIT_ERROR;
  }
  if (!options.uninstall && !existsSync(memctlMainPath())) {
    ctx.out.err(
      `memctl: warning: ${memctlMainPath()} does not exist yet; the hooks do nothing until memd is built (npm run build)`,
    );
  }
  printResult(ctx, path, outcome.result, outcome.backup, options, version);
  await sayIfNotRunning(ctx, options);
  return EXIT_OK;
};
