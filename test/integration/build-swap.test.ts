/**
 * `npm start` and `npm run build` as a user meets them (issue 29 item 2), in a copy of the package:
 * `npm start` over a running daemon says "already running" before it builds anything, and two
 * builds at once each finish and leave one whole dist/ and nothing of theirs behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_MARKER, copyPackage } from '../helpers/package-copy.js';
import { keepForFile, makeSandbox, type RunResult, runNode, startDaemon } from '../helpers/sandbox.js';

/** Two full tsc builds at once, on two cores shared with other test runs. */
const BUILD_DEADLINE_MS = 300_000;

const copies: string[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) rmSync(copy, { recursive: true, force: true });
});

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((done) => {
    const child = spawn('npm', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('npm start and npm run build', () => {
  it('npm start over a running daemon says already running, naming its pid, without building first', {
    timeout: BUILD_DEADLINE_MS,
  }, async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const copy = copyPackage();
    copies.push(copy);
    const start = await npm(['start'], copy, sandbox.env);
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain(`memd: already running as pid ${daemon.child.pid}`);
    expect(existsSync(join(copy, 'dist', BUILD_MARKER)), 'dist/ was not rebuilt').toBe(true);
  });

  it('two builds at once both succeed and leave one whole dist/, no staging tree and no lock', {
    timeout: BUILD_DEADLINE_MS,
  }, async () => {
    const copy = copyPackage();
    copies.push(copy);
    const env = { ...process.env, NO_COLOR: '1' };
    const builds = await Promise.all([npm(['run', 'build'], copy, env), npm(['run', 'build'], copy, env)]);
    for (const build of builds) expect(build.code, build.stdout + build.stderr).toBe(0);
    expect(existsSync(join(copy, 'dist', BUILD_MARKER)), 'dist/ was replaced').toBe(false);
    expect(readdirSync(copy).filter((name) => name.startsWith('dist'))).toEqual(['dist']);
    const version = await runNode([join(copy, 'bin', 'memctl.cjs'), '--version'], env);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    // The daemon's command (its bundle) and the ES modules it falls back to.
    for (const daemon of [join(copy, 'bin', 'memd.cjs'), join(copy, 'dist', 'daemon', 'main.js')]) {
      const daemonCheck = await runNode([daemon, '--version'], env);
      expect(daemonCheck.code, daemonCheck.stderr).toBe(0);
    }
  });
});
