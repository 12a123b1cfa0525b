/**
 * `memctl install-mcp [--project] [--uninstall] [--dry-run]`: memd's MCP server (`memctl mcp`)
 * registered with Claude Code as `mcpServers.memd`, or taken out again. User scope is Claude Code's
 * global config (`.claude.json`, a big file Claude Code rewrites itself: only `mcpServers.memd` is
 * touched); project scope is the project's `.mcp.json`. A file that is not JSON is never written,
 * and an existing one is backed up first.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { memctlCommandPath, memctlMainPath } from '../../install-paths.js';
import { type Command, type CommandContext, EXIT_ERROR, EXIT_OK } from '../context.js';
import { sayIfNotRunning } from '../daemon-starter.js';
import { editSettings, type InstallOptions, parseInstallOptions, projectRoot } from '../settings-file.js';

/** The server's name in Claude Code: its tools are `mcp__memd__<tool>`. */
export const MCP_SERVER_KEY = 'memd';
/** A new global config: Claude Code keeps account details in it later, so only the user reads it. */
const NEW_USER_CONFIG_MODE = 0o600;
/** A new .mcp.json is meant to be shared with the project (committed), like any source file. */
const NEW_PROJECT_CONFIG_MODE = 0o644;

export interface McpServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface McpMergeResult {
  config: unknown;
  changed: boolean;
  /** What changed, in words; null when nothing did. */
  action: string | null;
}

/** The file is JSON but not in Claude Code's shape where memd would write. */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

/** `node <memctl main> mcp`, by absolute paths: Claude Code starts it without a shell or a PATH. */
export function memdMcpEntry(nodePath: string, memctlPath: string): McpServerEntry {
  return { type: 'stdio', command: nodePath, args: [memctlPath, 'mcp'], env: {} };
}

/** Where Claude Code keeps user-scope MCP servers: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`. */
export function userMcpConfigPath(env: NodeJS.ProcessEnv): string {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir !== '') return join(configDir, '.claude.json');
  return join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(), '.claude.json');
}

/** The project's shared MCP config, at its root (CLAUDE_PROJECT_DIR when a hook runs us, else the cwd). */
export function projectMcpConfigPath(env: NodeJS.ProcessEnv): string {
  return join(projectRoot(env), '.mcp.json');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameEntry(existing: unknown, entry: McpServerEntry): boolean {
  return isPlainObject(existing) && JSON.stringify(existing) === JSON.stringify(entry);
}

function servers(config: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(config)) throw new McpConfigError('the top level is not an object');
  const found = config.mcpServers;
  if (found === undefined) return undefined;
  if (!isPlainObject(found)) throw new McpConfigError('mcpServers is not an object');
  return found;
}

function describe(entry: unknown): string {
  if (!isPlainObject(entry)) return JSON.stringify(entry);
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  return [entry.command ?? entry.url ?? '?', ...args].map(String).join(' ');
}

/** Sets `mcpServers.memd` to `entry`; every other key and server stays as it was, in its place. */
export function installMcpServer(config: unknown, entry: McpServerEntry): McpMergeResult {
  const existing = servers(config);
  const current = existing?.[MCP_SERVER_KEY];
  if (sameEntry(current, entry)) return { config, changed: false, action: null };
  const root = config as Record<string, unknown>;
  const next = { ...root, mcpServers: { ...(existing ?? {}), [MCP_SERVER_KEY]: entry } };
  const action =
    current === undefined
      ? `added mcpServers.${MCP_SERVER_KEY}: ${describe(entry)}`
      : `updated mcpServers.${MCP_SERVER_KEY}: ${describe(current)} → ${describe(entry)}`;
  return { config: next, changed: true, action };
}

/** Takes out `mcpServers.memd` only. */
export function uninstallMcpServer(config: unknown): McpMergeResult {
  const existing = servers(config);
  if (existing === undefined || !(MCP_SERVER_KEY in existing)) return { config, changed: false, action: null };
  const { [MCP_SERVER_KEY]: removed, ...others } = existing;
  return {
    config: { ...(config as Record<string, unknown>), mcpServers: others },
    changed: true,
    action: `removed mcpServers.${MCP_SERVER_KEY}: ${describe(removed)}`,
  };
}

type Options = InstallOptions;

function parseOptions(args: string[]): Options {
  return parseInstallOptions('install-mcp', args);
}

function printResult(
  ctx: CommandContext,
  path: string,
  result: McpMergeResult,
  backup: string | undefined,
  options: Options,
): void {
  if (ctx.json) {
    ctx.out.out(
      JSON.stringify({
        path,
        changed: result.changed,
        actions: result.action === null ? [] : [result.action],
        backup: backup ?? null,
        dryRun: options.dryRun,
      }),
    );
    return;
  }
  if (!result.changed) {
    ctx.out.out(
      options.uninstall
        ? `no memd MCP server to remove in ${path}`
        : `memd's MCP server is already registered in ${path}`,
    );
    return;
  }
  ctx.out.out(options.dryRun ? `would change ${path} (dry run, nothing written):` : `changed ${path}:`);
  ctx.out.out(`  ${result.action}`);
  if (backup !== undefined) ctx.out.out(`backup of the previous file: ${backup}`);
  if (options.dryRun || options.uninstall) return;
  // Claude Code reads its MCP servers when a session starts; project servers need the user's approval once.
  ctx.out.out(
    options.project
      ? 'Claude Code asks to approve the project server the next time a session starts here; its tools are mcp__memd__*.'
      : 'Sessions started from now on have its tools (mcp__memd__*); claude mcp get memd shows it.',
  );
}

export const installMcp: Command = async (ctx) => {
  const options = parseOptions(ctx.args);
  const path = options.project ? projectMcpConfigPath(ctx.env) : userMcpConfigPath(ctx.env);
  const entry = memdMcpEntry(process.execPath, memctlCommandPath());
  let outcome: Awaited<ReturnType<typeof editSettings<McpMergeResult>>>;
  try {
    outcome = await editSettings(path, {
      merge: (config) => (options.uninstall ? uninstallMcpServer(config) : installMcpServer(config, entry)),
      settingsOf: (result) => result.config,
      newFileMode: options.project ? NEW_PROJECT_CONFIG_MODE : NEW_USER_CONFIG_MODE,
      dryRun: options.dryRun,
      projectRoot: options.project ? projectRoot(ctx.env) : undefined,
    });
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    ctx.out.err(`memctl: ${path}: ${error.message}; memd edits only Claude Code's format, nothing was changed`);
    return EXIT_ERROR;
  }
  if ('refused' in outcome) {
    ctx.out.err(`memctl: ${outcome.refused}`);
    return EXIT_ERROR;
  }
  if (!options.uninstall && !existsSync(memctlMainPath())) {
    ctx.out.err(
      `memctl: warning: ${memctlMainPath()} does not exist yet; the MCP server answers only with that error until memd is built (npm run build)`,
    );
  }
  printResult(ctx, path, outcome.result, outcome.backup, options);
  await sayIfNotRunning(ctx, options);
  return EXIT_OK;
};
