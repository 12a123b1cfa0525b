/**
 * `memctl export --out`: a transcript is its user's alone, so the file is made 0600 (narrowed
 * further by a stricter umask), whatever the umask, and a file already there is replaced by one of
 * that mode; it appears by rename, and never through a symlink at the path.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import {
  eventually,
  keepForFile,
  MEMCTL_MAIN,
  makeSandbox,
  type RunResult,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const loop = manifest('coding-loop');
const PROCESS_DEADLINE_MS = 20_000;

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

/** `memctl ARGS` run by a shell that set `umask` first (a spawned process inherits the test's). */
function memctlWithUmask(sandbox: Sandbox, umask: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, MEMCTL_MAIN, ...args], {
      env: sandbox.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_DEADLINE_MS);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('memctl export --out', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    client.close();
  });

  const leftovers = () => readdirSync(sandbox.root).filter((name) => name.endsWith('.tmp'));

  for (const umask of ['022', '002', '077']) {
    it(`makes a file only its user can read, with umask ${umask}, in every format`, async () => {
      for (const format of ['md', 'html', 'jsonl']) {
        const out = join(sandbox.root, `umask-${umask}.${format}`);
        const run = await memctlWithUmask(sandbox, umask, [
          'export',
          loop.sessionId.slice(0, 8),
          '--format',
          format,
          '--out',
          out,
        ]);
        expect(run.code, run.stderr).toBe(0);
        expect(statSync(out).mode & 0o777, `${format} with umask ${umask}`).toBe(0o600);
        expect(statSync(out).size).toBeGreaterThan(0);
      }
      expect(leftovers()).toEqual([]);
    });
  }

  it('narrows the mode further when the umask takes the owner bits too', async () => {
    const out = join(sandbox.root, 'umask-277.md');
    const run = await memctlWithUmask(sandbox, '277', ['export', loop.sessionId.slice(0, 8), '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o400);
  });

  it('replaces an existing world-readable file with a 0600 one (the old mode is not kept)', async () => {
    const out = join(sandbox.root, 'existing.md');
    writeFileSync(out, 'an older export');
    chmodSync(out, 0o644);
    const before = statSync(out).ino;
    const run = await memctlWithUmask(sandbox, '022', ['export', loop.sessionId.slice(0, 8), '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    // Replaced by a rename, not rewritten in place: a reader of the old file never sees half of the new one.
    expect(statSync(out).ino).not.toBe(before);
    expect(readFileSync(out, 'utf8')).toContain(loop.sessionId);
  });

  it('never writes through a symlink at the path, even a dangling one', async () => {
    const link = join(sandbox.root, 'dangling.md');
    const target = join(sandbox.root, 'not-there.md');
    symlinkSync(target, link);
    const run = await memctlWithUmask(sandbox, '022', ['export', loop.sessionId.slice(0, 8), '--out', link]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is a symlink');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(() => statSync(target)).toThrow();
  });
});
