import {
  chmodSync,
  existsSync,
  lstatSync,
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
import { installHooks } from '../../../../client/memctl/commands/install-hooks.js';
import { type CommandContext, UsageError } from '../../../../client/memctl/context.js';
import { plainOutput } from '../../../../client/memctl/output.js';
import {
  formatSettings,
  MEMD_HOOKS,
  memdHookCommands,
  memdHookName,
  installHooks as mergeHooks,
} from '../../../../shared/hooks/settings.js';
import { FIXTURES } from '../../../helpers/ingest.js';

const COMMANDS = memdHookCommands(process.execPath, memctlCommandPath());
const OLD_COMMANDS = memdHookCommands('/usr/bin/node', '/home/user/old-checkout/dist/client/memctl/main.js');
const FIXTURE_TEXT = readFileSync(join(FIXTURES, 'compactions', 'settings.json'), 'utf8');

type Entry = { matcher?: string; hooks: { command: string; timeout: number }[] };

let dir: string;
let claudeDir: string;
let settingsPath: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-install-hooks-'));
  claudeDir = join(dir, 'claude');
  settingsPath = join(claudeDir, 'settings.json');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], options: { json?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const output = plainOutput({ out: (text) => void out.push(text), err: (text) => void err.push(text) });
  const ctx: CommandContext = {
    args,
    json: options.json ?? false,
    autostart: false,
    out: output,
    env: options.env ?? { HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: claudeDir },
    client: () => {
      throw new Error('install-hooks must not need the daemon');
    },
  };
  const code = await installHooks(ctx);
  return { code, out, err };
}

function writeSettings(text: string): void {
  mkdirSync(claudeDir, { recursive: true });
  writeFileSync(settingsPath, text);
}

function backups(): string[] {
  return existsSync(claudeDir) ? readdirSync(claudeDir).filter((name) => name.startsWith('settings.json.bak-')) : [];
}

function hooksIn(path: string): Record<string, Entry[]> {
  return (JSON.parse(readFileSync(path, 'utf8')) as { hooks: Record<string, Entry[]> }).hooks;
}

function memdCommands(path: string): string[] {
  return Object.values(hooksIn(path)).flatMap((entries) =>
    entries.flatMap((entry) =>
      entry.hooks.map((hook) => hook.command).filter((command) => memdHookName(command) !== undefined),
    ),
  );
}

describe('memctl install-hooks', () => {
  it('creates settings.json and its directory when there is none', async () => {
    const { code, out } = await run([]);
    expect(code).toBe(0);
    expect(readFileSync(settingsPath, 'utf8')).toBe(formatSettings(mergeHooks({}, COMMANDS).settings));
    expect(out[0]).toBe(`changed ${settingsPath}:`);
    expect(out).toContain(`  added PreCompact hook: ${COMMANDS['pre-compact']}`);
    expect(backups()).toEqual([]);
  });

  it('installs only the events the claude on PATH knows (issue 31)', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "2.1.70 (Claude Code)"\n', { mode: 0o755 });
    const env = { HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: claudeDir, PATH: `${bin}:/usr/bin:/bin` };
    const { code, out } = await run([], { env });
    expect(code).toBe(0);
    expect(Object.keys(hooksIn(settingsPath))).not.toContain('StopFailure');
    expect(Object.keys(hooksIn(settingsPath))).not.toContain('PostCompact');
    expect(Object.keys(hooksIn(settingsPath))).toContain('InstructionsLoaded');
    expect(out).toContain('(the events Claude Code 2.1.70 knows)');
  });

  it('finds ~/.claude from HOME when CLAUDE_CONFIG_DIR is not set', async () => {
    const { code } = await run([], { env: { HOME: join(dir, 'home') } });
    expect(code).toBe(0);
    expect(memdCommands(join(dir, 'home', '.claude', 'settings.json'))).toHaveLength(MEMD_HOOKS.length);
  });

  it('keeps every hook of an existing file, backs it up, and is idempotent', async () => {
    writeSettings(FIXTURE_TEXT);
    const { code, out } = await run([]);
    expect(code).toBe(0);
    const original = JSON.parse(FIXTURE_TEXT) as { hooks: Record<string, Entry[]> };
    const after = hooksIn(settingsPath);
    for (const [event, entries] of Object.entries(original.hooks)) {
      expect(JSON.stringify(after[event]?.slice(0, entries.length))).toBe(JSON.stringify(entries));
    }
    expect(memdCommands(settingsPath).sort()).toEqual(MEMD_HOOKS.map((spec) => COMMANDS[spec.name]).sort());
    const [backup] = backups();
    expect(backups()).toHaveLength(1);
    expect(readFileSync(join(claudeDir, backup ?? ''), 'utf8')).toBe(FIXTURE_TEXT);
    expect(out).toContain(`backup of the previous file: ${join(claudeDir, backup ?? '')}`);

    const installed = readFileSync(settingsPath, 'utf8');
    const again = await run([]);
    expect(again.out).toEqual([
      `memd's hooks are already installed in ${settingsPath}`,
      expect.stringMatching(/^memd is not running; /),
    ]);
    expect(readFileSync(settingsPath, 'utf8')).toBe(installed);
    expect(backups()).toHaveLength(1);
  });

  it('neither writes nor backs up a file that has our hooks already', async () => {
    const text = formatSettings(mergeHooks(JSON.parse(FIXTURE_TEXT), COMMANDS).settings);
    writeSettings(text);
    const before = statSync(settingsPath).mtimeMs;
    const { code, out } = await run([], { json: true });
    expect(code).toBe(0);
    expect(JSON.parse(out[0] ?? '')).toEqual({
      path: settingsPath,
      claudeCodeVersion: null,
      changed: false,
      actions: [],
      backup: null,
      dryRun: false,
    });
    expect(readFileSync(settingsPath, 'utf8')).toBe(text);
    expect(statSync(settingsPath).mtimeMs).toBe(before);
    expect(backups()).toEqual([]);
  });

  it('updates an older install with another command path in place', async () => {
    writeSettings(formatSettings(mergeHooks(JSON.parse(FIXTURE_TEXT), OLD_COMMANDS).settings));
    const { code, out } = await run([], { json: true });
    expect(code).toBe(0);
    const report = JSON.parse(out[0] ?? '') as { actions: string[]; backup: string };
    expect(report.actions).toEqual(
      MEMD_HOOKS.map((spec) => `updated ${spec.event} hook (command): ${COMMANDS[spec.name]}`),
    );
    expect(memdCommands(settingsPath).sort()).toEqual(MEMD_HOOKS.map((spec) => COMMANDS[spec.name]).sort());
    expect(report.backup).toBe(join(claudeDir, backups()[0] ?? ''));
  });

  it('refuses a file that is not JSON, says where, and leaves it untouched', async () => {
    const broken = '{\n  "hooks": {\n    "Stop": [],\n  }\n}\n';
    writeSettings(broken);
    const { code, out, err } = await run([]);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err[0]).toBe(
      `memctl: ${settingsPath} is not valid JSON (line 4, column 3: unexpected '}', expected a double-quoted property name); fix it or move it aside, nothing was changed`,
    );
    expect(readFileSync(settingsPath, 'utf8')).toBe(broken);
    expect(backups()).toEqual([]);
  });

  it('refuses settings in a shape it does not know, naming the key', async () => {
    const odd = '{ "hooks": { "PreCompact": { "matcher": "" } } }\n';
    writeSettings(odd);
    const { code, err } = await run([]);
    expect(code).toBe(1);
    expect(err[0]).toContain(`${settingsPath}: hooks.PreCompact is an object; expected an array`);
    expect(readFileSync(settingsPath, 'utf8')).toBe(odd);
    expect(backups()).toEqual([]);
  });

  it('refuses settings nested 10,000 deep (a cloned repo can hold them) instead of crashing or cutting them', async () => {
    const deep = `{ "hooks": {}, "x": ${'['.repeat(10_000)}${']'.repeat(10_000)} }\n`;
    writeSettings(deep);
    const { code, err } = await run([]);
    expect(code).toBe(1);
    expect(err[0]).toContain(`${settingsPath} nests deeper than 256 levels; memctl will not rewrite it`);
    expect(readFileSync(settingsPath, 'utf8')).toBe(deep);
    expect(backups()).toEqual([]);
  });

  it('with --project, edits <project>/.claude/settings.json and not the user settings', async () => {
    const project = join(dir, 'project');
    const { code, out } = await run(['--project'], {
      env: { HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: claudeDir, CLAUDE_PROJECT_DIR: project },
    });
    expect(code).toBe(0);
    const projectSettings = join(project, '.claude', 'settings.json');
    expect(out[0]).toBe(`changed ${projectSettings}:`);
    expect(memdCommands(projectSettings)).toHaveLength(MEMD_HOOKS.length);
    expect(existsSync(claudeDir)).toBe(false);
  });

  it('with --uninstall, removes only its own hooks', async () => {
    writeSettings(formatSettings(mergeHooks(JSON.parse(FIXTURE_TEXT), OLD_COMMANDS).settings));
    const { code, out } = await run(['--uninstall']);
    expect(code).toBe(0);
    expect(readFileSync(settingsPath, 'utf8')).toBe(FIXTURE_TEXT);
    expect(out).toContain(`  removed SessionStart hook: ${OLD_COMMANDS['session-start']}`);
    expect(backups()).toHaveLength(1);
    const again = await run(['--uninstall']);
    expect(again.out).toEqual([`no memd hooks to remove in ${settingsPath}`]);
  });

  it('with --uninstall and no file, creates nothing', async () => {
    const { code, out } = await run(['--uninstall']);
    expect(code).toBe(0);
    expect(out).toEqual([`no memd hooks to remove in ${settingsPath}`]);
    expect(existsSync(claudeDir)).toBe(false);
  });

  it('with --dry-run, writes nothing', async () => {
    const empty = await run(['--dry-run']);
    expect(empty.out[0]).toBe(`would change ${settingsPath} (dry run, nothing written):`);
    expect(existsSync(claudeDir)).toBe(false);

    writeSettings(FIXTURE_TEXT);
    const { code, out } = await run(['--dry-run'], { json: true });
    expect(code).toBe(0);
    expect(JSON.parse(out[0] ?? '')).toMatchObject({ changed: true, backup: null, dryRun: true });
    expect(readFileSync(settingsPath, 'utf8')).toBe(FIXTURE_TEXT);
    expect(backups()).toEqual([]);
  });

  it('edits the file a symlink points to, keeping the link and the file mode', async () => {
    const target = join(dir, 'dotfiles', 'claude-settings.json');
    mkdirSync(join(dir, 'dotfiles'));
    writeFileSync(target, FIXTURE_TEXT);
    chmodSync(target, 0o600);
    mkdirSync(claudeDir);
    symlinkSync(target, settingsPath);
    const { code } = await run([]);
    expect(code).toBe(0);
    expect(lstatSync(settingsPath).isSymbolicLink()).toBe(true);
    expect(memdCommands(target)).toHaveLength(MEMD_HOOKS.length);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'dotfiles')).filter((name) => name.includes('.bak-'))).toHaveLength(1);
  });

  it('takes an empty file for empty settings', async () => {
    writeSettings('\n');
    const { code } = await run([]);
    expect(code).toBe(0);
    expect(memdCommands(settingsPath)).toHaveLength(MEMD_HOOKS.length);
  });

  it('rejects an argument it does not know', async () => {
    await expect(run(['--force'])).rejects.toThrow(UsageError);
  });
});
