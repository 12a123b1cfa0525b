import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memctlCommandPath } from '../../../../client/install-paths.js';
import { installStatusLineCommand } from '../../../../client/memctl/commands/install-statusline.js';
import type { CommandContext } from '../../../../client/memctl/context.js';
import type { Output } from '../../../../client/memctl/output.js';
import { KEPT_BACKUPS } from '../../../../client/memctl/settings-file.js';
import {
  combinedCommand,
  installStatusLine,
  isMemdStatusLine,
  memdStatusLineCommand,
  uninstallStatusLine,
} from '../../../../shared/hooks/statusline.js';

const COMMAND = memdStatusLineCommand(process.execPath, memctlCommandPath());
const THEIRS = 'bash ~/.claude/statusline.sh';

let dir: string;
let settingsPath: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-install-statusline-'));
  settingsPath = join(dir, 'claude', 'settings.json');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], json = false) {
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
    json,
    autostart: false,
    out: output,
    env: { HOME: join(dir, 'home'), CLAUDE_CONFIG_DIR: join(dir, 'claude') },
    client: () => {
      throw new Error('install-statusline must not need the daemon');
    },
  };
  return { code: await installStatusLineCommand(ctx), out, err };
}

const settings = () => JSON.parse(readFileSync(settingsPath, 'utf8')) as Record<string, unknown>;
/** The backups kept per file (settings-file.ts KEPT_BACKUPS): those of the usual two-installer set-up and one more. */
const KEPT_BACKUP_COUNT = 3;
const backups = () =>
  existsSync(join(dir, 'claude'))
    ? readdirSync(join(dir, 'claude')).filter((name) => name.startsWith('settings.json.bak-'))
    : [];

function writeSettings(value: unknown): void {
  mkdirSync(join(dir, 'claude'), { recursive: true });
  writeFileSync(settingsPath, typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
}

describe('memctl install-statusline', () => {
  it('sets statusLine in new settings, keeps every other key of existing ones, and is idempotent', async () => {
    expect((await run([])).code).toBe(0);
    expect(settings()).toEqual({ statusLine: { type: 'command', command: COMMAND, padding: 0 } });
    writeSettings({ model: 'opus', hooks: { Stop: [] } });
    const first = await run([]);
    expect(first.code).toBe(0);
    expect(settings()).toEqual({
      model: 'opus',
      hooks: { Stop: [] },
      statusLine: { type: 'command', command: COMMAND, padding: 0 },
    });
    expect(backups()).toHaveLength(1);
    const again = await run([]);
    expect(again.out).toEqual([
      `memd's status line is already installed in ${settingsPath}`,
      expect.stringMatching(/^memd is not running; /),
    ]);
    expect(backups()).toHaveLength(1);
  });

  it('keeps a bounded few backups per file however often it installs and uninstalls, newest last', async () => {
    writeSettings({ model: 'opus' });
    writeFileSync(`${settingsPath}.bak-notes`, 'the user keeps this');
    // Twice the backups kept, whatever KEPT_BACKUPS says: more runs than a bound would allow.
    const cycles = 2 * KEPT_BACKUP_COUNT;
    for (let cycle = 0; cycle < cycles; cycle++) {
      expect((await run([])).code).toBe(0);
      expect((await run(['--uninstall'])).code).toBe(0);
    }
    const kept = backups().filter((name) => name !== 'settings.json.bak-notes');
    expect(kept).toHaveLength(KEPT_BACKUP_COUNT);
    expect(KEPT_BACKUPS).toBe(KEPT_BACKUP_COUNT);
    // The newest one holds the file as the last uninstall found it: with memd's status line.
    const newest = kept.sort().at(-1) ?? '';
    expect(JSON.parse(readFileSync(join(dir, 'claude', newest), 'utf8'))).toMatchObject({
      statusLine: { command: COMMAND },
    });
    expect(readFileSync(`${settingsPath}.bak-notes`, 'utf8')).toBe('the user keeps this');
  });

  it("leaves another tool's status line, says how to show both, and replaces it only with --force", async () => {
    writeSettings({ statusLine: { type: 'command', command: THEIRS } });
    const refused = await run([]);
    expect(refused.code).toBe(1);
    expect(settings()).toEqual({ statusLine: { type: 'command', command: THEIRS } });
    expect(refused.err.join('\n')).toContain(combinedCommand(THEIRS, COMMAND));
    expect(backups()).toEqual([]);
    const json = await run([], true);
    expect(JSON.parse(json.out[0] ?? '')).toMatchObject({ changed: false, conflict: THEIRS });
    const forced = await run(['--force']);
    expect(forced.code).toBe(0);
    expect(forced.out[1]).toBe(`  replaced ${JSON.stringify(THEIRS)} with statusLine: ${COMMAND}`);
    expect(settings()).toEqual({ statusLine: { type: 'command', command: COMMAND, padding: 0 } });
    expect(backups()).toHaveLength(1);
  });

  it('changes nothing on --dry-run, refuses a file that is not JSON, and uninstalls only its own', async () => {
    writeSettings({ statusLine: { type: 'command', command: '/old/node /old/memctl/main.js statusline' } });
    const dry = await run(['--dry-run']);
    expect(dry.out[0]).toContain('dry run');
    expect(settings()).toEqual({
      statusLine: { type: 'command', command: '/old/node /old/memctl/main.js statusline' },
    });
    writeSettings('{ "statusLine": ');
    const broken = await run([]);
    expect(broken.code).toBe(1);
    expect(broken.err[0]).toContain('is not valid JSON');
    writeSettings({ statusLine: { type: 'command', command: THEIRS } });
    expect((await run(['--uninstall'])).out).toEqual([`no memd status line to remove in ${settingsPath}`]);
    expect(settings()).toEqual({ statusLine: { type: 'command', command: THEIRS } });
    writeSettings({ model: 'x', statusLine: { type: 'command', command: COMMAND, padding: 0 } });
    expect((await run(['--uninstall'])).code).toBe(0);
    expect(settings()).toEqual({ model: 'x' });
  });
});

describe('the statusLine merge', () => {
  it("recognizes memd's command however memctl is named", () => {
    expect(
      [
        'memctl statusline',
        `${COMMAND}  `,
        "'/usr/bin/node' '/a b/dist/client/memctl/main.js' statusline",
        "'/usr/bin/node' '/a b/bin/memctl.cjs' statusline",
      ].every(isMemdStatusLine),
    ).toBe(true);
    expect(['mymemctl statusline', 'memctl statusline --x', THEIRS, 42].some(isMemdStatusLine)).toBe(false);
  });

  it('refuses a statusLine of the wrong shape, and updates an older install of its own', () => {
    expect(() => installStatusLine({ statusLine: 'x' }, COMMAND, { force: false })).toThrow(
      'statusLine is not an object',
    );
    expect(() => uninstallStatusLine([])).toThrow('the top level');
    const updated = installStatusLine({ statusLine: { type: 'command', command: 'memctl statusline' } }, COMMAND, {
      force: false,
    });
    expect(updated.actions).toEqual([`updated statusLine: ${COMMAND}`]);
  });

  it('gives a combined command that a POSIX shell runs: both lines on one', () => {
    const line = execFileSync('sh', ['-c', combinedCommand("printf 'theirs\\nsecond'", 'cat')], {
      input: '{"x":1}',
      encoding: 'utf8',
    });
    expect(line).toBe('theirs · {"x":1}');
  });
});
