/**
 * Where Claude Code finds memd's MCP server, for `memctl doctor`: `mcpServers.memd` in the user's
 * `.claude.json` (user scope), in its `projects[<dir>]` entry (local scope, `claude mcp add`'s
 * default), and in the project's `.mcp.json`. Read only; `memctl install-mcp` writes them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isRecord } from '../../shared/values.js';
import { memctlCommandPath } from '../install-paths.js';
import { MCP_SERVER_KEY, memdMcpEntry, projectMcpConfigPath, userMcpConfigPath } from './commands/install-mcp.js';
import { projectRoot } from './settings-file.js';

export interface McpCheck {
  ok: boolean | 'skip';
  label: string;
  detail: string;
  hint?: string;
}

interface Registration {
  where: string;
  entry: unknown;
}

const LABEL = 'mcp';

/** A config file's content, null when there is none, or the reason it cannot be read as JSON. */
function readConfig(path: string): { config: unknown } | null | { problem: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : { problem: (error as Error).message };
  }
  try {
    return { config: JSON.parse(text) };
  } catch (error) {
    return { problem: `not valid JSON: ${(error as Error).message}` };
  }
}

function memdEntryOf(container: unknown): unknown {
  if (!isRecord(container) || !isRecord(container.mcpServers)) return undefined;
  return container.mcpServers[MCP_SERVER_KEY];
}

/** What the entry runs, in words, and whether it is this installation's `memctl mcp`. */
function judge(entry: unknown): { current: boolean; runs: string; missing: string | null } {
  const expected = memdMcpEntry(process.execPath, memctlCommandPath());
  if (!isRecord(entry)) return { current: false, runs: JSON.stringify(entry), missing: null };
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  const runs = [String(entry.command ?? entry.url ?? '?'), ...args].join(' ');
  const current = entry.command === expected.command && JSON.stringify(args) === JSON.stringify(expected.args);
  // A registration of another checkout of memd is fine as long as its script is there to run.
  const script = args.find((arg) => /memctl\/main\.[cm]?js$/.test(arg));
  return { current, runs, missing: script !== undefined && !existsSync(script) ? script : null };
}

export function checkMcpRegistration(env: NodeJS.ProcessEnv): McpCheck {
  const userPath = userMcpConfigPath(env);
  const projectPath = projectMcpConfigPath(env);
  const root = projectRoot(env);
  const found: Registration[] = [];
  const problems: string[] = [];
  const user = readConfig(userPath);
  if (user !== null && 'problem' in user) problems.push(`${userPath}: ${user.problem}`);
  else if (user !== null) {
    const global = memdEntryOf(user.config);
    if (global !== undefined) found.push({ where: `${userPath} (user)`, entry: global });
    const projects = isRecord(user.config) ? user.config.projects : undefined;
    const local = isRecord(projects) ? memdEntryOf(projects[root]) : undefined;
    if (local !== undefined) found.push({ where: `${userPath} projects["${root}"] (local)`, entry: local });
  }
  const project = readConfig(projectPath);
  if (project !== null && 'problem' in project) problems.push(`${projectPath}: ${project.problem}`);
  else if (project !== null) {
    const shared = memdEntryOf(project.config);
    if (shared !== undefined) found.push({ where: `${projectPath} (project)`, entry: shared });
  }
  if (problems.length > 0)
    return {
      ok: false,
      label: LABEL,
      detail: problems.join('; '),
      hint: 'fix the file; Claude Code cannot read it either',
    };
  if (found.length === 0)
    return {
      ok: 'skip',
      label: LABEL,
      detail: `memd is not registered in ${userPath} nor ${projectPath} (optional: memctl install-mcp)`,
    };
  for (const { where, entry } of found) {
    const { current, runs, missing } = judge(entry);
    if (missing !== null)
      return {
        ok: false,
        label: LABEL,
        detail: `${where} runs ${runs}, and ${missing} does not exist`,
        hint: 'memctl install-mcp',
      };
    if (!current)
      return {
        ok: false,
        label: LABEL,
        detail: `${where} runs another memctl: ${runs}`,
        hint: 'memctl install-mcp (--project for .mcp.json)',
      };
  }
  return {
    ok: true,
    label: LABEL,
    detail: `memctl mcp registered in ${found.map((registration) => registration.where).join(', ')}`,
  };
}
