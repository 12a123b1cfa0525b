import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memctlCommandPath } from '../../../../client/install-paths.js';
import {
  installMcp,
  installMcpServer,
  memdMcpEntry,
  uninstallMcpServer,
  userMcpConfigPath,
} from '../../../../client/memctl/commands/install-mcp.js';
import type { CommandContext } from '../../../../client/memctl/context.js';
import type { Output } from '../../../../client/memctl/output.js';

const ENTRY = memdMcpEntry(process.execPath, memctlCommandPath());
const THEIRS = { type: 'stdio', command: 'npx', args: ['-y', 'other-server'], env: { TOKEN: 'x' } };

let dir: string;
let configDir: string;
let userConfig: string;
let projectDir: string;
let projectConfig: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-install-mcp-'));
  configDir = join(dir, 'claude');
  userConfig = join(configDir, '.claude.json');
  projectDir = join(dir, 'project');
  projectConfig = join(projectDir, '.mcp.json');
  mkdirSync(projectDir);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], options: { json?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const id = (text: string) => text;
  const output: Output = {
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    bold: id,
    green: id,
    red: id,
    yellow: id,
    dim: id,
  };
  const ctx: CommandContext = {
    args,
    json: options.json ?? false,
    autostart: false,
    out: output,
    env: options.env ?? { HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: configDir, CLAUDE_PROJECT_DIR: projectDir },
    client: () => {
      throw new Error('install-mcp must not need the daemon');
    },
  };
  return { code: await installMcp(ctx), out, err };
}

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const backupsOf = (path: string) => {
  const folder = join(path, '..');
  const name = path.slice(folder.length + 1);
  return existsSync(folder) ? readdirSync(folder).filter((file) => file.startsWith(`${name}.bak-`)) : [];
};

function write(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
}

describe('memctl install-mcp', () => {
  it("registers memd in the user's .claude.json, touching nothing else, and is idempotent", async () => {
    // A new file: only the user may read it, as Claude Code's own.
    const first = await run([]);
    expect(first.code).toBe(0);
    expect(first.out[0]).toBe(`changed ${userConfig}:`);
    expect(read(userConfig)).toEqual({ mcpServers: { memd: ENTRY } });
    expect(statSync(userConfig).mode & 0o777).toBe(0o600);
    expect(ENTRY).toEqual({ type: 'stdio', command: process.execPath, args: [memctlCommandPath(), 'mcp'], env: {} });

    // Claude Code's own keys and other servers stay as they were, in their order.
    const claudeOwn = {
      numStartups: 3,
      projects: { '/p': { allowedTools: [] } },
      mcpServers: { other: THEIRS },
      userID: 'abc',
    };
    write(userConfig, claudeOwn);
    const second = await run([]);
    expect(second.code).toBe(0);
    expect(read(userConfig)).toEqual({ ...claudeOwn, mcpServers: { other: THEIRS, memd: ENTRY } });
    expect(Object.keys(read(userConfig))).toEqual(['numStartups', 'projects', 'mcpServers', 'userID']);
    expect(backupsOf(userConfig)).toHaveLength(1);
    const again = await run([]);
    expect(again.out).toEqual([
      `memd's MCP server is already registered in ${userConfig}`,
      expect.stringMatching(/^memd is not running; /),
    ]);
    expect(backupsOf(userConfig)).toHaveLength(1);
  });

  it('updates an older memd entry in place, and writes the project .mcp.json with --project', async () => {
    write(userConfig, {
      mcpServers: {
        a: THEIRS,
        memd: { type: 'stdio', command: '/old/node', args: ['/old/memctl/main.js', 'mcp'] },
        z: THEIRS,
      },
    });
    const updated = await run([]);
    expect(updated.out[1]).toBe(
      `  updated mcpServers.memd: /old/node /old/memctl/main.js mcp → ${process.execPath} ${memctlCommandPath()} mcp`,
    );
    expect(Object.keys(read(userConfig).mcpServers as object)).toEqual(['a', 'memd', 'z']);
    expect((read(userConfig).mcpServers as Record<string, unknown>).memd).toEqual(ENTRY);

    const project = await run(['--project']);
    expect(project.code).toBe(0);
    expect(read(projectConfig)).toEqual({ mcpServers: { memd: ENTRY } });
    expect(statSync(projectConfig).mode & 0o777).toBe(0o644);
    expect(project.out.at(-2)).toContain('approve');
    expect(project.out.at(-1)).toMatch(/^memd is not running; /);
  });

  it('finds ~/.claude.json without CLAUDE_CONFIG_DIR, as Claude Code does', async () => {
    const home = join(dir, 'home');
    expect(userMcpConfigPath({ HOME: home })).toBe(join(home, '.claude.json'));
    expect(userMcpConfigPath({ HOME: home, CLAUDE_CONFIG_DIR: configDir })).toBe(userConfig);
    expect((await run([], { env: { HOME: home } })).code).toBe(0);
    expect(read(join(home, '.claude.json'))).toEqual({ mcpServers: { memd: ENTRY } });
  });

  it('changes nothing on --dry-run, refuses a file that is not JSON or not in shape, and uninstalls only memd', async () => {
    write(userConfig, { mcpServers: { other: THEIRS } });
    const dry = await run(['--dry-run'], { json: true });
    expect(JSON.parse(dry.out[0] ?? '')).toEqual({
      path: userConfig,
      changed: true,
      actions: [`added mcpServers.memd: ${process.execPath} ${memctlCommandPath()} mcp`],
      backup: null,
      dryRun: true,
    });
    expect(read(userConfig)).toEqual({ mcpServers: { other: THEIRS } });

    write(userConfig, '{ "mcpServers": ');
    const broken = await run([]);
    expect(broken.code).toBe(1);
    expect(broken.err[0]).toMatch(
      /is not valid JSON \(line 1, column \d+: .*\); fix it or move it aside, nothing was changed$/,
    );
    expect(readFileSync(userConfig, 'utf8')).toBe('{ "mcpServers": ');

    write(userConfig, { mcpServers: [] });
    const wrongShape = await run([]);
    expect(wrongShape).toMatchObject({
      code: 1,
      err: [
        `memctl: ${userConfig}: mcpServers is not an object; memd edits only Claude Code's format, nothing was changed`,
      ],
    });

    write(userConfig, { mcpServers: { other: THEIRS, memd: ENTRY }, theme: 'dark' });
    const removed = await run(['--uninstall']);
    expect(removed.code).toBe(0);
    expect(read(userConfig)).toEqual({ mcpServers: { other: THEIRS }, theme: 'dark' });
    expect((await run(['--uninstall'])).out).toEqual([`no memd MCP server to remove in ${userConfig}`]);
    expect((await run(['--bogus']).catch((error: Error) => error)) as Error).toMatchObject({
      message: 'install-mcp does not take --bogus',
    });
  });

  it('edits the file a symlinked .claude.json points at, keeping the link', async () => {
    const real = join(dir, 'dotfiles', 'claude.json');
    write(real, { theme: 'dark' });
    mkdirSync(configDir, { recursive: true });
    symlinkSync(real, userConfig);
    expect((await run([])).code).toBe(0);
    expect(read(real)).toEqual({ theme: 'dark', mcpServers: { memd: ENTRY } });
    expect(readFileSync(userConfig, 'utf8')).toBe(readFileSync(real, 'utf8'));
  });
});

describe('the mcpServers merge', () => {
  it('refuses a top level that is not an object, and leaves a config without memd alone on uninstall', () => {
    expect(() => installMcpServer([], ENTRY)).toThrow('the top level is not an object');
    expect(uninstallMcpServer({ theme: 'dark' })).toEqual({ config: { theme: 'dark' }, changed: false, action: null });
    expect(installMcpServer({ mcpServers: { memd: { ...ENTRY } } }, ENTRY).changed).toBe(false);
  });
});
