/**
 * memctl's installers (install-hooks, install-statusline, install-mcp, and their --uninstall) as
 * their own processes, on config files that are not what they expect: a FIFO, a socket, a
 * directory or a symlink to one is refused at once (before, install-hooks blocked forever reading
 * a FIFO); a read-only file is left alone with a sentence (before, the rename replaced it anyway);
 * and runs at the same time lose no change, nor do they lose the changes of a writer that keeps
 * rewriting ~/.claude.json as Claude Code does (before, one of two concurrent installs was lost).
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
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
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEMD_HOOKS } from '../../shared/hooks/settings.js';
import { MEMCTL_MAIN, ROOT, type RunResult } from '../helpers/sandbox.js';
import { NOBODY } from '../helpers/unprivileged.js';

/** Far longer than any installer takes: a run still going then is hung, and is killed. */
const HANG_DEADLINE_MS = 15_000;
/** Rounds of two installers started together; before the fix 1 or 2 of 10 lost a change. */
const RACE_ROUNDS = 20;
/** Forty memctl runs on two shared cores: room enough that only a hang fails it. */
const RACE_TEST_TIMEOUT_MS = 120_000;
/** The other writer's rewrites of ~/.claude.json while memctl edits it. */
const WRITER_ROUNDS = 150;
const WRITER = join(ROOT, 'test/helpers/claude-json-writer-child.mjs');

let dir: string;
let claudeDir: string;
let settings: string;
let claudeJson: string;
let env: NodeJS.ProcessEnv;
const servers: Server[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-installers-'));
  claudeDir = join(dir, 'claude');
  mkdirSync(claudeDir);
  settings = join(claudeDir, 'settings.json');
  claudeJson = join(claudeDir, '.claude.json');
  env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    CLAUDE_CONFIG_DIR: claudeDir,
    CLAUDE_PROJECT_DIR: join(dir, 'project'),
  };
});

afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `memctl ARGS`; a run that outlives HANG_DEADLINE_MS is killed and reported as hung. */
function memctl(args: string[], options: { uid?: number } = {}): Promise<RunResult & { hung: boolean }> {
  return new Promise((resolve) => {
    const ids = options.uid === undefined ? {} : { uid: options.uid, gid: options.uid };
    const child = spawn(process.execPath, [MEMCTL_MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], ...ids });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_DEADLINE_MS);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, hung });
    });
  });
}

async function mkfifo(path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('mkfifo', [path], { stdio: 'ignore' });
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo ${path} exited ${code}`))));
  });
}

async function unixSocket(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

const INSTALLERS: { args: string[]; file: () => string }[] = [
  { args: ['install-hooks'], file: () => settings },
  { args: ['install-hooks', '--uninstall'], file: () => settings },
  { args: ['install-statusline'], file: () => settings },
  { args: ['install-statusline', '--uninstall'], file: () => settings },
  { args: ['install-mcp'], file: () => claudeJson },
  { args: ['install-mcp', '--uninstall'], file: () => claudeJson },
  { args: ['install-mcp', '--project'], file: () => join(dir, 'project', '.mcp.json') },
];

describe('installers on a config file that is not a regular file', () => {
  it('refuse a FIFO at once, with a sentence and exit 1, and leave it a FIFO', async () => {
    mkdirSync(join(dir, 'project'));
    for (const installer of INSTALLERS) {
      const path = installer.file();
      if (!existsSync(path)) await mkfifo(path);
      const run = await memctl(installer.args);
      expect(run.hung, `${installer.args.join(' ')} hung on a FIFO`).toBe(false);
      expect(run.code, installer.args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`${path} is a FIFO (named pipe), not a regular file`);
      expect(run.stderr).toContain('nothing was changed');
      expect(lstatSync(path).isFIFO()).toBe(true);
    }
    expect(readdirSync(claudeDir).sort()).toEqual(['.claude.json', 'settings.json']);
  });

  it('refuse a socket, a directory, and a symlink to a FIFO or to nothing', async () => {
    await unixSocket(settings);
    expect(await memctl(['install-hooks'])).toMatchObject({
      code: 1,
      hung: false,
      stderr: expect.stringContaining(`${settings} is a socket, not a regular file`),
    });
    rmSync(settings);
    mkdirSync(settings);
    expect(await memctl(['install-statusline'])).toMatchObject({
      code: 1,
      hung: false,
      stderr: expect.stringContaining(`${settings} is a directory, not a regular file`),
    });
    rmSync(settings, { recursive: true });
    const pipe = join(dir, 'pipe');
    await mkfifo(pipe);
    symlinkSync(pipe, settings);
    expect(await memctl(['install-hooks'])).toMatchObject({
      code: 1,
      hung: false,
      stderr: expect.stringContaining(
        `${settings} is a symlink to ${pipe}, which is a FIFO (named pipe), not a regular file`,
      ),
    });
    rmSync(settings);
    symlinkSync(join(dir, 'missing.json'), settings);
    expect(await memctl(['install-hooks'])).toMatchObject({
      code: 1,
      hung: false,
      stderr: expect.stringContaining(`${settings} is a symlink to ${join(dir, 'missing.json')}, which does not exist`),
    });
    expect(lstatSync(settings).isSymbolicLink()).toBe(true);
  });

  it("follow a symlink only to a regular file of the user's own", async () => {
    const target = join(dir, 'dotfiles.json');
    writeFileSync(target, '{}\n');
    chownSync(target, NOBODY, NOBODY);
    symlinkSync(target, settings);
    const run = await memctl(['install-hooks']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${settings} is a symlink to ${target}, a file of another user (uid ${NOBODY})`);
    expect(readFileSync(target, 'utf8')).toBe('{}\n');
  });

  it('follow no symlink in a project (--project): neither the file nor .claude on its way', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    // A cloned repository whose .claude is a link to the user's own settings dir, and whose .mcp.json links to ~/.claude.json.
    writeFileSync(settings, '{"theme":"dark"}\n');
    writeFileSync(claudeJson, '{"numStartups":3}\n');
    symlinkSync(claudeDir, join(project, '.claude'));
    symlinkSync(claudeJson, join(project, '.mcp.json'));
    for (const args of [
      ['install-hooks', '--project'],
      ['install-statusline', '--project'],
      ['install-mcp', '--project'],
    ]) {
      const run = await memctl(args);
      expect(run, args.join(' ')).toMatchObject({
        code: 1,
        hung: false,
        stderr: expect.stringContaining('memctl follows no symlink in a project'),
      });
    }
    expect(readFileSync(settings, 'utf8')).toBe('{"theme":"dark"}\n');
    expect(readFileSync(claudeJson, 'utf8')).toBe('{"numStartups":3}\n');
  });
});

describe('installers on a read-only config file', () => {
  /** The config dir and its files handed to `nobody`, for whom a mode means what it says. */
  function handToNobody(): void {
    chownSync(dir, NOBODY, NOBODY);
    for (const entry of readdirSync(dir, { recursive: true })) chownSync(join(dir, String(entry)), NOBODY, NOBODY);
  }

  it('leave a chmod 444 file alone, say so and how to go on, as an unprivileged user', async () => {
    const text = '{\n  "theme": "dark"\n}\n';
    writeFileSync(settings, text);
    writeFileSync(claudeJson, text);
    chmodSync(settings, 0o444);
    chmodSync(claudeJson, 0o444);
    handToNobody();
    for (const installer of INSTALLERS.filter(
      (candidate) => !candidate.args.includes('--uninstall') && !candidate.args.includes('--project'),
    )) {
      const path = installer.file();
      const before = statSync(path);
      const run = await memctl(installer.args, { uid: NOBODY });
      expect(run.code, installer.args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`${path} is read-only (mode 0444)`);
      expect(run.stderr).toContain(`chmod u+w ${path}`);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(statSync(path).ino).toBe(before.ino);
    }
    expect(readdirSync(claudeDir).sort()).toEqual(['.claude.json', 'settings.json']);
  });

  it('write it once the user makes it writable again', async () => {
    writeFileSync(settings, '{}\n');
    chmodSync(settings, 0o644);
    handToNobody();
    const run = await memctl(['install-hooks'], { uid: NOBODY });
    expect(run.code, run.stderr).toBe(0);
    expect(Object.keys((JSON.parse(readFileSync(settings, 'utf8')) as { hooks: object }).hooks).length).toBeGreaterThan(
      0,
    );
  });
});

describe('installers run at the same time', () => {
  it(
    `install-hooks and install-statusline together keep both changes, ${RACE_ROUNDS} rounds of ${RACE_ROUNDS}`,
    async () => {
      const lost: number[] = [];
      for (let round = 0; round < RACE_ROUNDS; round++) {
        writeFileSync(settings, `{\n  "round": ${round}\n}\n`);
        const [hooks, statusLine] = await Promise.all([memctl(['install-hooks']), memctl(['install-statusline'])]);
        expect(hooks.code, hooks.stderr).toBe(0);
        expect(statusLine.code, statusLine.stderr).toBe(0);
        const after = JSON.parse(readFileSync(settings, 'utf8')) as {
          round: number;
          hooks?: Record<string, unknown>;
          statusLine?: unknown;
        };
        const hookEvents = new Set(MEMD_HOOKS.map((spec) => spec.event));
        if (
          after.round !== round ||
          after.statusLine === undefined ||
          Object.keys(after.hooks ?? {}).length !== hookEvents.size
        )
          lost.push(round);
        for (const name of readdirSync(claudeDir).filter((file) => file.includes('.bak-')))
          rmSync(join(claudeDir, name));
      }
      expect(lost, 'rounds that lost a change').toEqual([]);
      expect(readdirSync(claudeDir).sort()).toEqual(['settings.json']);
    },
    RACE_TEST_TIMEOUT_MS,
  );

  it(
    "install-mcp and --uninstall, over and over, while another writer keeps rewriting .claude.json: every writer's key and memd's last change survive",
    async () => {
      writeFileSync(claudeJson, '{\n  "numStartups": 1\n}\n');
      const writer = spawn(process.execPath, [WRITER, claudeJson, String(WRITER_ROUNDS)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let writerOut = '';
      writer.stdout.on('data', (chunk: Buffer) => (writerOut += chunk.toString()));
      writer.stderr.on('data', (chunk: Buffer) => (writerOut += chunk.toString()));
      const writerDone = new Promise<number | null>((resolve) => writer.once('close', resolve));
      let runs = 0;
      let writerFinished = false;
      void writerDone.then(() => (writerFinished = true));
      // memctl runs as long as the writer writes (at least 6 times): each edit races some rewrites.
      while (!writerFinished || runs < 6) {
        const run = await memctl(runs % 2 === 0 ? ['install-mcp'] : ['install-mcp', '--uninstall']);
        expect(run.code, run.stderr).toBe(0);
        runs++;
      }
      expect(await writerDone, writerOut).toBe(0);
      const last = await memctl(['install-mcp']);
      expect(last.code, last.stderr).toBe(0);
      const config = JSON.parse(readFileSync(claudeJson, 'utf8')) as Record<string, unknown> & {
        mcpServers?: Record<string, unknown>;
      };
      const missing = Array.from({ length: WRITER_ROUNDS }, (_, round) => `writer-${round}`).filter(
        (key) => config[key] === undefined,
      );
      expect(missing, `writer keys lost over ${runs} memctl runs`).toEqual([]);
      expect(config.numStartups).toBe(1);
      expect(config.mcpServers?.memd).toBeDefined();
    },
    RACE_TEST_TIMEOUT_MS,
  );
});
