/**
 * The README's way to install memd apart from a working copy: `npm pack`, then `npm install -g`
 * of the tarball (here into a temporary --prefix, offline from npm's cache; where npm cannot do that
 * offline, the same steps by hand, see installByHand). The installed memctl
 * runs, registers the installed package with Claude Code (not this checkout), and what it
 * registered works against a running memd. Install scripts are skipped (--ignore-scripts: building
 * better-sqlite3 may need the network), so the installed package's own daemon is not started here;
 * the thin clients tested need no native module.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { keepForFile, makeSandbox, ROOT, type RunResult, type Sandbox, startDaemon } from '../helpers/sandbox.js';

/** npm pack and an offline install of a dozen packages, on a machine shared with other test runs. */
const INSTALL_DEADLINE_MS = 300_000;

const loop = manifest('coding-loop');

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<RunResult> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

/** `npm install -g --prefix PREFIX TARBALL`, step by step, with dependencies from the checkout's lockfile. */
async function installByHand(tgz: string, temp: string, prefix: string, installed: string): Promise<void> {
  const unpacked = join(temp, 'unpacked');
  mkdirSync(unpacked);
  const untar = await run('tar', ['xzf', tgz, '-C', unpacked]);
  expect(untar.code, untar.stderr).toBe(0);
  mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
  renameSync(join(unpacked, 'package'), installed);
  copyFileSync(join(ROOT, 'package-lock.json'), join(installed, 'package-lock.json'));
  const deps = await run('npm', ['ci', '--omit=dev', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: installed,
  });
  expect(deps.code, deps.stderr).toBe(0);
  mkdirSync(join(prefix, 'bin'));
  const bin = (JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string> })
    .bin;
  for (const [name, target] of Object.entries(bin))
    symlinkSync(join('..', 'lib', 'node_modules', 'memd', target), join(prefix, 'bin', name));
}

describe('memd packed and installed with npm install -g --prefix', () => {
  let sandbox: Sandbox;
  let temp: string;
  let prefix: string;
  let installed: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    keepForFile(sandbox, await startDaemon(sandbox));
    temp = mkdtempSync('/tmp/memd-pack-');
    prefix = join(temp, 'prefix');
    // The dist/ that pretest built; --ignore-scripts keeps prepare from rebuilding the tree other tests run.
    const pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', temp], { cwd: ROOT });
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = readdirSync(temp).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const tgz = join(temp, tarball as string);
    installed = join(prefix, 'lib', 'node_modules', 'memd');
    const install = await run('npm', [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      tgz,
    ]);
    if (install.code !== 0) {
      // Offline, npm install -g needs the registry's package documents, which npm ci never caches
      // (ENOTCACHED). What it does is then done by hand: the tarball unpacked where -g puts it, its
      // dependencies from the lockfile (whose tarballs are cached), memctl linked into the prefix's bin.
      expect(install.stderr, install.stderr).toContain('ENOTCACHED');
      await installByHand(tgz, temp, prefix, installed);
    }
  }, INSTALL_DEADLINE_MS);

  afterAll(() => {
    if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  });

  it('holds the shim, the built tree and the unit templates, and none of the sources or tests', () => {
    for (const file of [
      'bin/memctl.cjs',
      'bin/memd.cjs',
      'dist/client/memctl/main.js',
      // The status line and the turn hooks, bundled by npm run build (scripts/bundle-quick.mjs).
      'dist/client/memctl/quick.cjs',
      // The reports users type (issue 34), bundled the same way.
      'dist/client/memctl/reports.cjs',
      'dist/daemon/main.js',
      // The daemon as one file, which bin/memd.cjs runs.
      'dist/daemon/memd.cjs',
      'systemd/memd.service',
    ])
      expect(existsSync(join(installed, file)), file).toBe(true);
    for (const dir of ['test', 'client', 'daemon', 'shared', 'scripts'])
      expect(existsSync(join(installed, dir)), dir).toBe(false);
  });

  it('puts memctl on the prefix PATH, and it registers the installed copy with Claude Code, not the checkout', async () => {
    const memctl = join(prefix, 'bin', 'memctl');
    const version = await run(memctl, ['--version'], { env: sandbox.env });
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^memctl \d+\.\d+\.\d+/);
    // The daemon's command, which the unit and the autostart run: the installed bundle.
    const daemonVersion = await run(join(prefix, 'bin', 'memd'), ['--version'], { env: sandbox.env });
    expect(daemonVersion, daemonVersion.stderr).toMatchObject({ code: 0, stderr: '' });
    for (const install of ['install-hooks', 'install-statusline', 'install-mcp']) {
      const result = await run(memctl, [install], { env: sandbox.env });
      expect(result.code, `${install}: ${result.stderr}`).toBe(0);
    }
    const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
    const settings = JSON.parse(readFileSync(join(claudeDir, 'settings.json'), 'utf8')) as {
      statusLine: { command: string };
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    const mcp = (
      JSON.parse(readFileSync(join(claudeDir, '.claude.json'), 'utf8')) as { mcpServers: { memd: { args: string[] } } }
    ).mcpServers.memd;
    const shim = join(installed, 'bin', 'memctl.cjs');
    expect(settings.statusLine.command).toContain(shim);
    expect(settings.hooks.SessionStart?.[0]?.hooks[0]?.command).toContain(shim);
    expect(mcp.args[0]).toBe(shim);

    // The registered status line, as Claude Code runs it, answers with memd's figures for the session.
    const input = JSON.stringify({
      session_id: loop.sessionId,
      transcript_path: `/nowhere/${loop.sessionId}.jsonl`,
      cwd: loop.cwd,
      model: { id: 'claude-sonnet-4-5' },
    });
    const status = await run('sh', ['-c', settings.statusLine.command], { env: sandbox.env, input });
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(status.stdout).not.toContain('no memd');
  });
});
