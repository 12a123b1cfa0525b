/**
 * Issue 13 items 1 and 2: a repository the user did not write must not lead memd through a
 * symlink. A committed `docs/handoff-context.md -> ~/.ssh/id_rsa` must not reach the model
 * (handoff.read, handoff.sessionStart, the hook's own fallback); a symlinked `.gitignore` or
 * `docs/` must not be written through; a new .gitignore is 0644 and an existing one keeps its mode.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { hookLogPath } from '../../client/memctl/hook-log.js';
import { RpcError } from '../../shared/protocol/errors.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const SECRET = '-----BEGIN OPENSSH PRIVATE KEY----- memd-test-secret';
let sandbox: Sandbox;
let client: Client;
let outside: string;
let n = 0;
/** The umask the daemon is started with: not the usual 022, so that following it shows. */
const USER_UMASK = 0o002;

/** A repository with one indexed session; returns its cwd and session id. */
async function repo(
  prepare: (cwd: string) => void,
  prompt = 'Fix the login redirect',
): Promise<{ cwd: string; sessionId: string }> {
  n += 1;
  const cwd = join(sandbox.root, `repo${n}`);
  mkdirSync(cwd);
  prepare(cwd);
  const sessionId = `5ec00000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const writer = new TranscriptWriter({ sessionId, cwd, version: '2.1.38' });
  writer.prompt(prompt);
  writer.toolRound('Read', { file_path: `${cwd}/src/login.ts` }, 'export {}', growingUsage(1));
  writeTranscript(mainPath(sandbox.projectsDir, cwd, sessionId), writer);
  await eventually(
    async () => (await client.sessionsList()).sessions.some((session) => session.sessionId === sessionId),
    'the session to be indexed',
  );
  return { cwd, sessionId };
}

beforeAll(async () => {
  sandbox = makeSandbox();
  outside = join(sandbox.root, 'home-secrets');
  mkdirSync(outside);
  writeFileSync(join(outside, 'id_rsa'), SECRET);
  writeFileSync(join(outside, '.gitconfig'), '[user]\n\tname = me\n');
  chmodSync(join(outside, '.gitconfig'), 0o644);
  // A group-friendly umask, as some users have: the docs/ memd makes must follow it (issue 29).
  const previous = process.umask(USER_UMASK);
  try {
    keepForFile(sandbox, await startDaemon(sandbox));
  } finally {
    process.umask(previous);
  }
  client = createClient({ env: sandbox.env, autostart: false });
});
afterAll(() => client?.close());

describe('a symlinked handoff never reaches the model', () => {
  it('handoff.read and handoff.sessionStart refuse it, with the reason', async () => {
    const { cwd, sessionId } = await repo((dir) => {
      mkdirSync(join(dir, 'docs'));
      symlinkSync(join(outside, 'id_rsa'), join(dir, 'docs', 'handoff-context.md'));
    });
    const read = await client.handoffRead({ cwd });
    expect(read.text).toBeNull();
    expect(read.refused).toMatch(/symlink/);
    const start = await client.handoffSessionStart({ sessionId, cwd, source: 'resume' });
    expect(JSON.stringify(start)).not.toContain('memd-test-secret');
  });

  it('the hook without a daemon does not print it either', async () => {
    const { cwd, sessionId } = await repo((dir) => {
      mkdirSync(join(dir, 'docs'));
      symlinkSync(join(outside, 'id_rsa'), join(dir, 'docs', 'handoff-context.md'));
    });
    const input = JSON.stringify({ session_id: sessionId, cwd, source: 'resume', hook_event_name: 'SessionStart' });
    const result = await runMemctl(
      sandbox,
      ['--no-autostart', 'hook', 'session-start'],
      { MEMD_SOCKET: join(sandbox.root, 'no-daemon.sock') },
      input,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('memd-test-secret');
    // Nothing on stderr whatever happens: the hook's note is in the state dir's hooks.log.
    expect(result.stderr).toBe('');
    expect(readFileSync(hookLogPath(sandbox.env), 'utf8')).toMatch(/symlink/);
  });

  it('a symlinked docs/ directory is refused too', async () => {
    const { cwd } = await repo((dir) => symlinkSync(outside, join(dir, 'docs')));
    expect((await client.handoffRead({ cwd })).refused).toMatch(/symlink/);
  });
});

describe('nothing is written through a symlink in the working tree', () => {
  it('a symlinked .gitignore is left alone and reported; its target is unchanged', async () => {
    const target = join(outside, '.gitconfig');
    const before = readFileSync(target, 'utf8');
    const { cwd, sessionId } = await repo((dir) => symlinkSync(target, join(dir, '.gitignore')));
    const result = await client.handoffGenerate({ sessionId, cwd });
    expect(result.gitignoreUpdated).toBe(false);
    expect(result.skipped).toEqual([{ path: join(cwd, '.gitignore'), reason: expect.stringMatching(/symlink/) }]);
    expect(readFileSync(target, 'utf8')).toBe(before);
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(cwd, '.gitignore')).isSymbolicLink()).toBe(true);
  });

  it('a symlinked docs/ gets PathRejected and nothing is written where it points', async () => {
    const elsewhere = join(sandbox.root, `elsewhere${n}`);
    mkdirSync(elsewhere);
    const { cwd, sessionId } = await repo((dir) => symlinkSync(elsewhere, join(dir, 'docs')));
    const refused = await client.handoffGenerate({ sessionId, cwd }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).kind).toBe('PathRejected');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a symlinked handoff file is not replaced or written through', async () => {
    const { cwd, sessionId } = await repo((dir) => {
      mkdirSync(join(dir, 'docs'));
      symlinkSync(join(outside, 'id_rsa'), join(dir, 'docs', 'handoff-context.md'));
    });
    await expect(client.handoffGenerate({ sessionId, cwd })).rejects.toMatchObject({ data: { kind: 'PathRejected' } });
    expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe(SECRET);
  });

  it("creates a .gitignore 0644 whatever the umask, and keeps an existing one's mode", async () => {
    const fresh = await repo(() => {});
    await client.handoffGenerate(fresh);
    expect(statSync(join(fresh.cwd, '.gitignore')).mode & 0o777).toBe(0o644);
    expect(statSync(join(fresh.cwd, 'docs', 'handoff-context.md')).mode & 0o777).toBe(0o600);
    const kept = await repo((dir) => {
      writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
      chmodSync(join(dir, '.gitignore'), 0o664);
    });
    await client.handoffGenerate(kept);
    expect(readFileSync(join(kept.cwd, '.gitignore'), 'utf8')).toContain('docs/handoff-context.md');
    expect(statSync(join(kept.cwd, '.gitignore')).mode & 0o777).toBe(0o664);
    expect(existsSync(join(kept.cwd, 'docs'))).toBe(true);
  });

  it("makes docs/ with the umask memd was started with, as the user's mkdir would; the handoff stays 0600", async () => {
    const fresh = await repo(() => {});
    await client.handoffGenerate(fresh);
    expect(statSync(join(fresh.cwd, 'docs')).mode & 0o777).toBe(0o777 & ~USER_UMASK);
    expect(statSync(join(fresh.cwd, 'docs', 'handoff-context.md')).mode & 0o777).toBe(0o600);
  });
});

describe('the PreCompact hook writes the handoff memd made, as the user (issue 29)', () => {
  const RULE = 'Never commit the generated client.';
  const preCompact = (cwd: string, sessionId: string) =>
    runMemctl(
      sandbox,
      ['hook', 'pre-compact'],
      {},
      JSON.stringify({
        session_id: sessionId,
        transcript_path: mainPath(sandbox.projectsDir, cwd, sessionId),
        cwd,
        hook_event_name: 'PreCompact',
        trigger: 'auto',
      }),
    );

  it('never through a symlinked docs/ or handoff, nor into a FIFO; the rules are pinned all the same', async () => {
    const elsewhere = join(sandbox.root, `elsewhere-hook${n}`);
    mkdirSync(elsewhere);
    const linkedDocs = await repo((dir) => symlinkSync(elsewhere, join(dir, 'docs')), RULE);
    const linkedFile = await repo((dir) => {
      mkdirSync(join(dir, 'docs'));
      symlinkSync(join(outside, 'id_rsa'), join(dir, 'docs', 'handoff-context.md'));
    }, RULE);
    const fifo = await repo((dir) => {
      mkdirSync(join(dir, 'docs'));
      execFileSync('mkfifo', [join(dir, 'docs', 'handoff-context.md')]);
    }, RULE);
    for (const { cwd, sessionId } of [linkedDocs, linkedFile, fifo]) {
      const run = await preCompact(cwd, sessionId);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`- ${RULE}`);
      expect(run.stderr).toBe('');
      expect(readFileSync(hookLogPath(sandbox.env), 'utf8')).toMatch(/could not be written/);
    }
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe(SECRET);
    expect(lstatSync(join(fifo.cwd, 'docs', 'handoff-context.md')).isFIFO()).toBe(true);
  });
});

describe('a cwd that is no working tree (issue 13 item 10)', () => {
  it('refuses /proc, /sys, /dev and links into them at once', async () => {
    const { sessionId, cwd } = await repo(() => {});
    symlinkSync('/proc/self', join(cwd, 'proc-link'));
    for (const bad of ['/proc/self', '/proc', '/sys/kernel', '/dev', join(cwd, 'proc-link')]) {
      const started = Date.now();
      const error = await client.handoffGenerate({ sessionId, cwd: bad }).catch((caught: unknown) => caught);
      expect(error, bad).toBeInstanceOf(RpcError);
      expect((error as RpcError).code, bad).toBe(-32602);
      expect((error as RpcError).message, bad).toMatch(/not part of \/(proc|sys|dev)/);
      expect(Date.now() - started, bad).toBeLessThan(5_000);
    }
    expect((await client.handoffRead({ cwd: '/proc/self' })).text).toBeNull();
  });
});
