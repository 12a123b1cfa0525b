/**
 * Issue 13 item 15: what the file system says no to reaches the client as a domain error (1008
 * IoError) whose message names the path and the cause, not as a bare InternalError. Permission
 * cases run the daemon as an unprivileged user (root passes every permission check); the full
 * disk is a small tmpfs, skipped with the reason where the machine cannot mount one.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { osErrorToRpc } from '../../daemon/rpc/os-errors.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, projectFolder, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import {
  DAEMON_MAIN,
  eventually,
  MEMCTL_MAIN,
  makeSandbox,
  type RunResult,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const CWD = '/home/dev/notes';
const SESSION = '0e000000-0000-4000-8000-000000000001';
const NOBODY = 65_534;

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function project(sandbox: Sandbox): string {
  const writer = new TranscriptWriter({ sessionId: SESSION, cwd: CWD, version: '2.1.38' });
  writer.prompt('Keep notes');
  writer.toolRound('Bash', { command: 'ls' }, 'ok', growingUsage(1));
  writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION), writer);
  return join(sandbox.projectsDir, projectFolder(CWD));
}

const write = {
  project: CWD,
  name: 'deploy',
  type: 'project',
  description: 'how we deploy',
  content: 'Deploy with make ship.\n',
} as const;

let mounted: string | undefined;
afterEach(() => {
  if (mounted !== undefined) execFileSync('umount', ['-l', mounted]);
  mounted = undefined;
});

describe('OS errors as domain errors', () => {
  it('maps real fs errors to a kind and a message naming the path and the cause', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memd-oserr-'));
    try {
      writeFileSync(join(dir, 'file'), 'x');
      const cases: [() => unknown, string, string][] = [
        [() => writeFileSync(dir, 'x'), 'IsADirectory', `cannot open ${dir}: is a directory, not a file (EISDIR)`],
        [
          () => readFileSync(join(dir, 'file', 'below')),
          'NotADirectory',
          `cannot open ${join(dir, 'file', 'below')}: a part of the path is not a directory (ENOTDIR)`,
        ],
        [
          () => readdirSync(join(dir, 'missing')),
          'FileNotFound',
          `cannot list ${join(dir, 'missing')}: no such file or directory (ENOENT)`,
        ],
        [
          () => mkdirSync(join(dir, 'file')),
          'AlreadyExists',
          `cannot create the directory ${join(dir, 'file')}: already exists (EEXIST)`,
        ],
      ];
      for (const [run, kind, message] of cases) {
        const mapped = osErrorToRpc(thrown(run));
        expect(mapped).toBeInstanceOf(RpcError);
        expect(mapped).toMatchObject({ code: ErrorCode.IoError, kind, message });
      }
      expect(osErrorToRpc(new TypeError('a bug'))).toBeUndefined();
      expect(osErrorToRpc(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toMatchObject(
        { kind: 'DiskFull' },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a memory dir that is a file: IoError naming it, and the daemon serves on', async () => {
    const sandbox = makeSandbox();
    const folder = project(sandbox);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => (await client.sessionsList()).sessions.length === 1, 'the session to be indexed');
      writeFileSync(join(folder, 'memory'), 'a file where the memory dir goes');
      const error = await client.memdirWrite(write).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: ErrorCode.IoError });
      expect((error as RpcError).message).toContain(join(folder, 'memory'));
      expect((error as RpcError).data).toMatchObject({ path: expect.stringContaining(join(folder, 'memory')) });
      expect((await client.daemonVersion()).name).toBe('memd');
    } finally {
      client.close();
    }
  });

  it('a full disk under the memory dir: DiskFull naming the file', async (ctx) => {
    const sandbox = makeSandbox();
    const folder = project(sandbox);
    const memory = join(folder, 'memory');
    mkdirSync(memory);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', memory], { stdio: 'pipe' });
    } catch (error) {
      process.stdout.write(`skipped: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})\n`);
      ctx.skip();
      return;
    }
    mounted = memory;
    writeFileSync(join(memory, 'filler'), Buffer.alloc(64 * 1024 - 4096));
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => (await client.sessionsList()).sessions.length === 1, 'the session to be indexed');
      const error = await client
        .memdirWrite({ ...write, content: 'x'.repeat(200_000) })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: ErrorCode.IoError, kind: 'DiskFull' });
      expect((error as RpcError).message).toMatch(/no space left on the device \(ENOSPC\)/);
      expect((error as RpcError).message).toContain(memory);
      // Nothing half-written is left behind.
      expect(readdirSync(memory).sort()).toEqual(['filler']);
    } finally {
      client.close();
    }
  });

  it('as an unprivileged user, a memory dir it may not write: PermissionDenied naming it', async (ctx) => {
    if (process.getuid?.() !== 0) {
      process.stdout.write('skipped: needs root to run the daemon as another user\n');
      return;
    }
    const sandbox = makeSandbox();
    const folder = project(sandbox);
    execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, sandbox.root]);
    // Root's memory dir in nobody's project: readable, not writable.
    const memory = join(folder, 'memory');
    mkdirSync(memory, { mode: 0o755 });
    chownSync(memory, 0, 0);
    const daemon = spawn(process.execPath, [DAEMON_MAIN, '--foreground'], {
      env: sandbox.env,
      uid: NOBODY,
      gid: NOBODY,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let daemonErr = '';
    daemon.stderr.on('data', (chunk: Buffer) => (daemonErr += chunk.toString()));
    ctx.onTestFailed(() => void process.stderr.write(`daemon as nobody: ${daemonErr}\n`));
    try {
      let last: RunResult | undefined;
      await eventually(
        async () => (last = await memctlAsNobody(sandbox, ['status'])).code === 0,
        'the daemon to answer',
        15_000,
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}: ${last?.stderr ?? ''}`);
      });
      const result = await memctlAsNobody(sandbox, ['call', 'memdir.write', JSON.stringify(write)]);
      expect(result.stderr).toContain(memory);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/permission denied \(EACCES\)/);
      expect(result.stderr).not.toContain('internal error');
    } finally {
      daemon.kill('SIGTERM');
      await new Promise((resolve) => daemon.once('exit', resolve));
    }
  });
});

function memctlAsNobody(sandbox: Sandbox, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEMCTL_MAIN, '--no-autostart', ...args], {
      env: sandbox.env,
      uid: NOBODY,
      gid: NOBODY,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
