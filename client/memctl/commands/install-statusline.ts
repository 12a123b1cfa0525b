/**
 * `memctl install-statusline [--project] [--uninstall] [--dry-run] [--force]`: Claude Code's
 * statusLine set to `memctl statusline` in settings.json, or taken out again. Another tool's
 * status line is left in place unless --force, with a command that shows both.
 */
import { HookSettingsError } from '../../../shared/hooks/settings.js';
import {
  combinedCommand,
  installStatusLine,
  memdStatusLineCommand,
  type StatusLineMergeResult,
  uninstallStatusLine,
} from '../../../shared/hooks/statusline.js';
import { memctlCommandPath } from '../../install-paths.js';
import { type Command, EXIT_ERROR, EXIT_OK } from '../context.js';
import { sayIfNotRunning } from '../daemon-starter.js';
import { editSettings, NEW_SETTINGS_MODE, parseInstallOptions, projectRoot, settingsPath } from '../settings-file.js';

export const installStatusLineCommand: Command = async (ctx) => {
  const options = parseInstallOptions('install-statusline', ctx.args, true);
  const path = settingsPath(ctx.env, options.project);
  const command = memdStatusLineCommand(process.execPath, memctlCommandPath());
  let outcome: Awaited<ReturnType<typeof editSettings<StatusLineMergeResult>>>;
  try {
    outcome = await editSettings(path, {
      merge: (settings) =>
        options.uninstall
          ? uninstallStatusLine(settings)
          : installStatusLine(settings, command, { force: options.force }),
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
  const { result, backup } = outcome;
  if (ctx.json) {
    ctx.out.out(
      JSON.stringify({
        path,
        changed: result.changed,
        actions: result.actions,
        conflict: result.conflict,
        backup: backup ?? null,
        dryRun: options.dryRun,
      }),
    );
    return result.conflict === null ? EXIT_OK : EXIT_ERROR;
  }
  if (result.conflict !== null) {
    ctx.out.err(`memctl: ${path} already has a status line: ${result.conflict}`);
    ctx.out.err('  nothing was changed. To show both on one line, set statusLine.command to:');
    ctx.out.err(`    ${combinedCommand(result.conflict, command)}`);
    ctx.out.err('  or run memctl install-statusline --force to replace it (the file is backed up first).');
    return EXIT_ERROR;
  }
  if (!result.changed) {
    ctx.out.out(
      options.uninstall
        ? `no memd status line to remove in ${path}`
        : `memd's status line is already installed in ${path}`,
    );
    await sayIfNotRunning(ctx, options);
    return EXIT_OK;
  }
  ctx.out.out(options.dryRun ? `would change ${path} (dry run, nothing written):` : `changed ${path}:`);
  for (const action of result.actions) ctx.out.out(`  ${action}`);
  if (backup !== undefined) ctx.out.out(`backup of the previous file: ${backup}`);
  if (!options.dryRun && !options.uninstall) ctx.out.out('Claude Code shows it from its next message on.');
  await sayIfNotRunning(ctx, options);
  return EXIT_OK;
};
