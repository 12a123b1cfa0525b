/**
 * `memctl install-hooks [--project] [--uninstall] [--dry-run]`: memd's Claude Code hooks merged
 * into settings.json, or taken out again. Nothing but memd's hooks changes, a file memd cannot
 * read as settings is never written, and the previous file is kept beside it.
 */
import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { installHooks as mergeHooks, memdHookCommands, uninstallHooks, formatSettings, HookSettingsError, type HookMergeResult } from '../../../shared/hooks/settings.js';
import { findJsonSyntaxProblem } from '../../../shared/json-syntax.js';
import { exceedsDepth } from '../../../shared/protocol/envelope.js';
import { MAX_ENTRY_DEPTH } from '../../../shared/transcript/depth.js';
import { claudeSettingsPath, projectSettingsPath, resolvePaths } from '../../../shared/paths.js';
import { memctlMainPath } from '../../install-paths.js';
import { EXIT_ERROR, EXIT_OK, UsageError, type Command, type CommandContext } from '../context.js';
import { writeFileAtomic } from '../fs-atomic.js';

const FLAGS = new Set(['--project', '--uninstall', '--dry-run']);
/** A new file holds only our hooks, nothing private: the usual mode of a config file. */
const NEW_FILE_MODE = 0o644;

interface Options {
  project: boolean;
  uninstall: boolean;
  dryRun: boolean;
}

/** What the file held: its parsed settings, or the reason it cannot be used. */
type Loaded = { exists: false; settings: unknown } | { exists: true; settings: unknown; realPath: string } | { refused: string };

function parseOptions(args: string[]): Options {
  const unknown = args.find((arg) => !FLAGS.has(arg));
  if (unknown !== undefined) throw new UsageError(`install-hooks does not take ${unknown}`);
  return { project: args.includes('--project'), uninstall: args.includes('--uninstall'), dryRun: args.includes('--dry-run') };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}

/** The user's settings (under CLAUDE_CONFIG_DIR or ~/.claude), or the project's shared one. */
function settingsPath(env: NodeJS.ProcessEnv, project: boolean): string {
  if (project) return projectSettingsPath(resolve(nonEmpty(env.CLAUDE_PROJECT_DIR) ?? process.cwd()));
  return claudeSettingsPath(resolvePaths(env, nonEmpty(env.HOME) ?? homedir()).claudeRoot);
}

function describeJsonError(text: string, error: unknown): string {
  const problem = findJsonSyntaxProblem(text);
  if (problem !== undefined) return `line ${problem.line}, column ${problem.column}: ${problem.reason}`;
  return error instanceof Error ? error.message : String(error);
}

function loadSettings(path: string): Loaded {
  if (!existsSync(path)) return { exists: false, settings: {} };
  // A settings.json kept in a dotfiles repository is often a symlink: edit the file it points to.
  const realPath = realpathSync(path);
  const text = readFileSync(realPath, 'utf8');
  // Nothing in an empty file can be lost, and `touch settings.json` is a common first step.
  if (text.trim() === '') return { exists: true, settings: {}, realPath };
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    return { refused: `${path} is not valid JSON (${describeJsonError(text, error)})` };
  }
  // Rewriting it would overflow JSON.stringify's stack; cutting it would lose the user's keys.
  if (exceedsDepth(settings, MAX_ENTRY_DEPTH)) return { refused: `${path} nests deeper than ${MAX_ENTRY_DEPTH} levels; memctl will not rewrite it` };
  return { exists: true, settings, realPath };
}

function merge(settings: unknown, options: Options): HookMergeResult {
  if (options.uninstall) return uninstallHooks(settings);
  return mergeHooks(settings, memdHookCommands(process.execPath, memctlMainPath()));
}

/** `settings.json.bak-2026-03-04T05-06-07-123Z` beside the file; never replaces an older backup. */
function backUp(realPath: string): string {
  const backup = `${realPath}.bak-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  copyFileSync(realPath, backup, constants.COPYFILE_EXCL);
  return backup;
}

function printResult(ctx: CommandContext, path: string, result: HookMergeResult, backup: string | undefined, options: Options): void {
  if (ctx.json) {
    ctx.out.out(JSON.stringify({ path, changed: result.changed, actions: result.actions, backup: backup ?? null, dryRun: options.dryRun }));
    return;
  }
  if (!result.changed) {
    ctx.out.out(options.uninstall ? `no memd hooks to remove in ${path}` : `memd's hooks are already installed in ${path}`);
    return;
  }
  ctx.out.out(options.dryRun ? `would change ${path} (dry run, nothing written):` : `changed ${path}:`);
  for (const action of result.actions) ctx.out.out(`  ${action}`);
  if (backup !== undefined) ctx.out.out(`backup of the previous file: ${backup}`);
  // Claude Code reads its hooks when a session starts and asks for a review of outside edits.
  if (!options.dryRun) ctx.out.out('Sessions already running pick this up after a restart, or once you review it in /hooks.');
}

export const installHooks: Command = async (ctx) => {
  const options = parseOptions(ctx.args);
  const path = settingsPath(ctx.env, options.project);
  const loaded = loadSettings(path);
  if ('refused' in loaded) {
    ctx.out.err(`memctl: ${loaded.refused}; fix it or move it aside, nothing was changed`);
    return EXIT_ERROR;
  }
  let result: HookMergeResult;
  try {
    result = merge(loaded.settings, options);
  } catch (error) {
    if (!(error instanceof HookSettingsError)) throw error;
    ctx.out.err(`memctl: ${path}: ${error.message}; memd edits only settings in Claude Code's format, nothing was changed`);
    return EXIT_ERROR;
  }
  if (!options.uninstall && !existsSync(memctlMainPath())) {
    ctx.out.err(`memctl: warning: ${memctlMainPath()} does not exist yet; the hooks fail until memd is built (npm run build)`);
  }
  if (!result.changed || options.dryRun) {
    printResult(ctx, path, result, undefined, options);
    return EXIT_OK;
  }
  let backup: string | undefined;
  if (loaded.exists) {
    backup = backUp(loaded.realPath);
    writeFileAtomic(loaded.realPath, formatSettings(result.settings), statSync(loaded.realPath).mode & 0o777);
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, formatSettings(result.settings), NEW_FILE_MODE);
  }
  printResult(ctx, path, result, backup, options);
  return EXIT_OK;
};
