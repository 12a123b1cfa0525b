/**
 * Claude Code's settings.json as memctl's installers edit it (install-hooks, install-statusline):
 * found where Claude Code reads it, parsed or refused with the reason, backed up, and written
 * atomically to the file a symlink points at (a dotfiles repository), keeping its mode.
 */
import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { findJsonSyntaxProblem } from '../../shared/json-syntax.js';
import { exceedsDepth } from '../../shared/protocol/envelope.js';
import { MAX_ENTRY_DEPTH } from '../../shared/transcript/depth.js';
import { claudeSettingsPath, projectSettingsPath, resolvePaths } from '../../shared/paths.js';
import { formatSettings } from '../../shared/hooks/settings.js';
import { UsageError } from './context.js';
import { writeFileAtomic } from './fs-atomic.js';

/** A new file holds only memd's entries, nothing private: the usual mode of a config file. */
const NEW_FILE_MODE = 0o644;

/** What the file held: its parsed settings, or the reason it cannot be used. */
export type LoadedSettings = { exists: false; settings: unknown } | { exists: true; settings: unknown; realPath: string } | { refused: string };

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}

/** The user's settings (under CLAUDE_CONFIG_DIR or ~/.claude), or the project's shared one. */
export function settingsPath(env: NodeJS.ProcessEnv, project: boolean): string {
  if (project) return projectSettingsPath(resolve(nonEmpty(env.CLAUDE_PROJECT_DIR) ?? process.cwd()));
  return claudeSettingsPath(resolvePaths(env, nonEmpty(env.HOME) ?? homedir()).claudeRoot);
}

function describeJsonError(text: string, error: unknown): string {
  const problem = findJsonSyntaxProblem(text);
  if (problem !== undefined) return `line ${problem.line}, column ${problem.column}: ${problem.reason}`;
  return error instanceof Error ? error.message : String(error);
}

export function loadSettings(path: string): LoadedSettings {
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

/** `settings.json.bak-2026-03-04T05-06-07-123Z` beside the file; never replaces an older backup. */
function backUp(realPath: string): string {
  const backup = `${realPath}.bak-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  copyFileSync(realPath, backup, constants.COPYFILE_EXCL);
  return backup;
}

/** Writes the new settings (after a backup of an existing file); returns the backup's path. */
export function saveSettings(path: string, loaded: Exclude<LoadedSettings, { refused: string }>, settings: unknown): string | undefined {
  if (loaded.exists) {
    const backup = backUp(loaded.realPath);
    writeFileAtomic(loaded.realPath, formatSettings(settings), statSync(loaded.realPath).mode & 0o777);
    return backup;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, formatSettings(settings), NEW_FILE_MODE);
  return undefined;
}

/** The flags every installer takes (install-hooks, install-statusline, install-mcp). */
export interface InstallOptions {
  project: boolean;
  uninstall: boolean;
  dryRun: boolean;
  /** Only where the installer replaces another tool's setting (install-statusline). */
  force: boolean;
}

export function parseInstallOptions(command: string, args: readonly string[], takesForce = false): InstallOptions {
  const flags = new Set(['--project', '--uninstall', '--dry-run', ...(takesForce ? ['--force'] : [])]);
  const unknown = args.find((arg) => !flags.has(arg));
  if (unknown !== undefined) throw new UsageError(`${command} does not take ${unknown}`);
  return { project: args.includes('--project'), uninstall: args.includes('--uninstall'), dryRun: args.includes('--dry-run'), force: args.includes('--force') };
}
