/**
 * Claude Code's settings.json and MCP configs as memctl's installers edit them (install-hooks,
 * install-statusline, install-mcp): found where Claude Code reads them, parsed or refused with the
 * reason, backed up, and replaced through config-file.ts (regular files only, read-only ones left
 * alone, under Claude Code's lock and compared again before the rename; a symlink to a file of the
 * user's own is followed, and the file it points at is edited, keeping its mode). A project's files
 * (`--project`) are in a repository, which may be a clone of anyone's: there no symlink is followed
 * at all, neither the file nor a directory on its way (issue 27).
 */
import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { formatSettings } from '../../shared/hooks/settings.js';
import { findJsonSyntaxProblem } from '../../shared/json-syntax.js';
import { claudeSettingsPath, projectSettingsPath, resolvePaths } from '../../shared/paths.js';
import { exceedsDepth } from '../../shared/protocol/envelope.js';
import { MAX_ENTRY_DEPTH } from '../../shared/transcript/depth.js';
import {
  type ConfigFile,
  ConfigFileRefusal,
  findConfigFile,
  readConfigBytes,
  readOnlyRefusal,
  replaceConfigFile,
} from './config-file.js';
import { UsageError } from './context.js';

/** A new settings.json holds only memd's entries, nothing private: the usual mode of a config file. */
export const NEW_SETTINGS_MODE = 0o644;

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}

/** The project `--project` installs into: CLAUDE_PROJECT_DIR when a hook runs us, else the cwd. */
export function projectRoot(env: NodeJS.ProcessEnv): string {
  return resolve(nonEmpty(env.CLAUDE_PROJECT_DIR) ?? process.cwd());
}

/** The user's settings (under CLAUDE_CONFIG_DIR or ~/.claude), or the project's shared one. */
export function settingsPath(env: NodeJS.ProcessEnv, project: boolean): string {
  if (project) return projectSettingsPath(projectRoot(env));
  return claudeSettingsPath(resolvePaths(env, nonEmpty(env.HOME) ?? homedir()).claudeRoot);
}

function describeJsonError(text: string, error: unknown): string {
  const problem = findJsonSyntaxProblem(text);
  if (problem !== undefined) return `line ${problem.line}, column ${problem.column}: ${problem.reason}`;
  return error instanceof Error ? error.message : String(error);
}

/** The settings in `bytes` ({} for no file or an empty one); throws ConfigFileRefusal when they cannot be used. */
function parseSettings(path: string, bytes: Buffer | null): unknown {
  if (bytes === null) return {};
  const text = bytes.toString('utf8');
  // Nothing in an empty file can be lost, and `touch settings.json` is a common first step.
  if (text.trim() === '') return {};
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileRefusal(`${path} is not valid JSON (${describeJsonError(text, error)})`);
  }
  // Rewriting it would overflow JSON.stringify's stack; cutting it would lose the user's keys.
  if (exceedsDepth(settings, MAX_ENTRY_DEPTH))
    throw new ConfigFileRefusal(`${path} nests deeper than ${MAX_ENTRY_DEPTH} levels; memctl will not rewrite it`);
  return settings;
}

/**
 * Backups kept per file, newest first: install-hooks and install-statusline both edit settings.json,
 * so three still hold the file as it was before the usual set-up, while install/uninstall cycles no
 * longer leave one more file each time (issue 29).
 */
export const KEPT_BACKUPS = 3;
const BACKUP_SUFFIX = '.bak-';
/** What backUp names: `.bak-` and an ISO time with `:` and `.` made `-`, which sorts by time. */
const BACKUP_TIME = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

/** `settings.json.bak-2026-03-04T05-06-07-123Z` beside the file, with its mode; never replaces an older backup. */
function backUp(realPath: string, bytes: Buffer, mode: number): string {
  const backup = `${realPath}${BACKUP_SUFFIX}${new Date().toISOString().replace(/[:.]/g, '-')}`;
  writeFileSync(backup, bytes, { flag: 'wx', mode });
  return backup;
}

/**
 * Removes all but the newest KEPT_BACKUPS of the file's backups, once the new one is in place. Only
 * regular files named as backUp names them go; anything else beside the file is left alone.
 */
export function pruneBackups(backup: string): void {
  const dir = dirname(backup);
  const name = basename(backup);
  const prefix = name.slice(0, name.lastIndexOf(BACKUP_SUFFIX) + BACKUP_SUFFIX.length);
  const found = readdirSync(dir)
    .filter((entry) => entry.startsWith(prefix) && BACKUP_TIME.test(entry.slice(prefix.length)))
    .sort();
  for (const old of found.slice(0, Math.max(0, found.length - KEPT_BACKUPS))) {
    const path = join(dir, old);
    try {
      if (lstatSync(path).isFile()) rmSync(path);
    } catch {
      // Gone already (another memctl pruned it): nothing to do.
    }
  }
}

/** One installer's change: a merge of the settings, which may throw the installer's own shape error. */
export interface SettingsChange<R extends { changed: boolean }> {
  merge(settings: unknown): R;
  /** The settings to write when the merge changed something. */
  settingsOf(result: R): unknown;
  /** The mode of a file memctl creates (an existing file keeps its own). */
  newFileMode: number;
  dryRun: boolean;
  /** The repository the file is in (`--project`): no symlink below it is followed. */
  projectRoot?: string | undefined;
}

/** Refuses a symlink anywhere from below `root` down to `path`: a cloned repository can point one at any file of the user's. */
function refuseLinksBelow(root: string, path: string): void {
  let at = root;
  for (const part of relative(root, path).split(sep)) {
    at = resolve(at, part);
    let link = false;
    try {
      link = lstatSync(at).isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (link)
      throw new ConfigFileRefusal(
        `${at} is a symlink, and memctl follows no symlink in a project (a repository can point one at any file of yours)`,
        'replace it with the file itself, nothing was changed',
      );
  }
}

/** `refused`: one sentence for stderr, saying what is wrong, that nothing was changed, and what to do. */
export type SettingsOutcome<R> = { refused: string } | { result: R; backup: string | undefined };

function refusalOf(error: unknown): { refused: string } {
  if (error instanceof ConfigFileRefusal) return { refused: error.sentence() };
  throw error;
}

/**
 * Reads the file, merges, and (unless nothing changes or it is a dry run) writes the result after a
 * backup of the previous file. The first pass takes no lock, so that a refusal, a dry run or a file
 * already as wanted costs nothing and creates nothing; the write merges again under the lock.
 */
export async function editSettings<R extends { changed: boolean }>(
  path: string,
  change: SettingsChange<R>,
): Promise<SettingsOutcome<R>> {
  let result: R;
  let file: ConfigFile;
  try {
    if (change.projectRoot !== undefined) refuseLinksBelow(change.projectRoot, path);
    file = findConfigFile(path);
    result = change.merge(parseSettings(path, file.exists ? readConfigBytes(path, file) : null));
    if (!result.changed || change.dryRun) return { result, backup: undefined };
    const readOnly = file.exists ? readOnlyRefusal(path, file) : null;
    if (readOnly !== null) return { refused: readOnly.sentence() };
  } catch (error) {
    return refusalOf(error);
  }
  if (!file.exists) mkdirSync(dirname(path), { recursive: true });
  try {
    const { backup } = await replaceConfigFile(path, (bytes, current) => {
      if (change.projectRoot !== undefined) refuseLinksBelow(change.projectRoot, path);
      if (current.exists) {
        const readOnly = readOnlyRefusal(path, current);
        if (readOnly !== null) throw readOnly;
      }
      result = change.merge(parseSettings(path, bytes));
      if (!result.changed) return { write: false };
      const mode = current.exists ? current.stat.mode & 0o777 : change.newFileMode;
      return {
        write: true,
        content: formatSettings(change.settingsOf(result)),
        mode,
        backup: current.exists ? (old) => backUp(current.realPath, old, mode) : undefined,
      };
    });
    if (backup !== undefined) pruneBackups(backup);
    return { result, backup };
  } catch (error) {
    return refusalOf(error);
  }
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
  return {
    project: args.includes('--project'),
    uninstall: args.includes('--uninstall'),
    dryRun: args.includes('--dry-run'),
    force: args.includes('--force'),
  };
}
