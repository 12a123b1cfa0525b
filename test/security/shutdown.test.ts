/**
 * Issue 13 item 5: a shutdown has a deadline, and `memctl stop` tells the truth. A step that does
 * not finish must not leave memd running with its lock held while `memctl stop` reports success.
 * Past `shutdownDeadlineMs` memd logs the step it was stuck in and what that step waited for,
 * removes its socket and lock, and kills itself; `memctl stop` says "stopped" only once the pid is
 * gone. The long operation here is real: a handoff whose `git status` hangs (a git that never
 * answers, as on a hung network mount, its child holding the pipe), with a request grace longer
 * than the deadline, so that the shutdown is still waiting for it when the deadline passes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../daemon/lifecycle/instance-lock.js';
import { EXIT_MARGIN_MS, exitWithin, handoffInFlight, hangingGitSetup, isGone } from '../helpers/hanging-git.js';
import { eventually, ROOT, runMemctl, startDaemon } from '../helpers/sandbox.js';

/** The log line of the deadline path, parsed. */
function deadlineRecord(output: string): Record<string, unknown> | null {
  const line = output
    .split('\n')
    .find((candidate) => candidate.includes('shutdown did not finish within its deadline'));
  return line === undefined ? null : (JSON.parse(line) as Record<string, unknown>);
}

describe('a shutdown that is held up past its deadline', () => {
  it('SIGTERM: memd exits at the deadline, logs what was stuck, frees its lock and socket, and a new daemon starts', async () => {
    const s = hangingGitSetup();
    const daemon = await startDaemon(s.sandbox, undefined, {
      ...s.env,
      MEMD_SHUTDOWN_DEADLINE_MS: '1000',
      MEMD_SHUTDOWN_GRACE_MS: '60000',
      MEMD_GIT_TIMEOUT_MS: '60000',
    });
    const socket = await handoffInFlight(s);
    const started = Date.now();
    daemon.child.kill('SIGTERM');
    const exit = await exitWithin(daemon, 1_000 + EXIT_MARGIN_MS);
    expect(exit, `memd still running ${Date.now() - started} ms after SIGTERM`).not.toBeNull();
    // Documented: the deadline path kills itself, since a normal exit can hang on a stuck thread.
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000 - 50);
    expect(deadlineRecord(daemon.output())).toMatchObject({
      level: 'error',
      reason: 'SIGTERM',
      deadlineMs: 1_000,
      stuck: 'finish requests',
      waitingFor: [expect.stringMatching(/^handoff\.generate \(connection \d+\)$/)],
      notRun: expect.arrayContaining(['stop ingest', 'stop extraction', 'close database', 'release lock']),
    });
    expect(existsSync(s.sandbox.lockPath)).toBe(false);
    expect(existsSync(s.sandbox.socketPath)).toBe(false);
    // The request was cancelled on the way out: the git it was waiting for is gone too.
    await eventually(() => s.children().every(isGone), 'the hanging git to be killed');
    socket.close();
    // Such a configuration is legal, and said at start.
    expect(daemon.output()).toContain('shutdownGraceMs is not below shutdownDeadlineMs');
    const next = await startDaemon(s.sandbox);
    expect(next.output()).not.toContain('already running');
  });

  it('a normal shutdown still exits 0 without reaching the deadline', async () => {
    const s = hangingGitSetup();
    const daemon = await startDaemon(s.sandbox, undefined, { MEMD_SHUTDOWN_DEADLINE_MS: '5000' });
    daemon.child.kill('SIGTERM');
    expect(await exitWithin(daemon, 5_000)).toEqual({ code: 0, signal: null });
    expect(deadlineRecord(daemon.output())).toBeNull();
  });
});

describe('memctl stop tells the truth', () => {
  it('waits until the pid is gone, not only the socket, while a request finishes', async () => {
    const s = hangingGitSetup();
    const daemon = await startDaemon(s.sandbox, undefined, {
      ...s.env,
      MEMD_SHUTDOWN_GRACE_MS: '1500',
      MEMD_GIT_TIMEOUT_MS: '60000',
    });
    const socket = await handoffInFlight(s);
    const stopped = await runMemctl(s.sandbox, ['stop']);
    // Checked the moment stop returns: the socket goes at once, the process only after the grace.
    const aliveWhenReported = isProcessAlive(daemon.pid) && !isGone(daemon.pid);
    const lockWhenReported = existsSync(s.sandbox.lockPath);
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toBe(`memd stopped (pid ${daemon.pid})\n`);
    expect(aliveWhenReported).toBe(false);
    expect(lockWhenReported).toBe(false);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    socket.close();
  });

  it('a daemon that does not go is reported, with its pid, and exit 1; a second stop does not call it "not running"', async () => {
    const s = hangingGitSetup();
    const daemon = await startDaemon(s.sandbox, undefined, {
      ...s.env,
      MEMD_SHUTDOWN_DEADLINE_MS: '1000',
      MEMD_SHUTDOWN_GRACE_MS: '60000',
      MEMD_GIT_TIMEOUT_MS: '60000',
    });
    const socket = await handoffInFlight(s);
    const stopping = runMemctl(s.sandbox, ['stop']);
    // Frozen mid-shutdown (as a debugger, or a disk that hangs every syscall, would hold it).
    await eventually(() => daemon.output().includes('"msg":"shutting down"'), 'the shutdown to begin');
    // Frozen once it stopped accepting (its first steps): a frozen listener would take the second
    // stop's connection and never answer, which is another case than the one tested here.
    await eventually(() => !existsSync(s.sandbox.socketPath), 'the socket to go');
    daemon.child.kill('SIGSTOP');
    try {
      const stopped = await stopping;
      expect(stopped.code).toBe(1);
      expect(stopped.stdout).toBe('');
      // Its deadline (1 s) and memctl's margin (2 s).
      expect(stopped.stderr).toContain(`memd (pid ${daemon.pid}) did not stop within 3 s`);
      expect(stopped.stderr).toContain(`kill -9 ${daemon.pid}`);

      // The socket is gone, the lock is not: a daemon all the same.
      const again = await runMemctl(s.sandbox, ['stop']);
      expect(again.code).toBe(1);
      expect(again.stdout).not.toContain('not running');
      expect(again.stderr).toContain(`memd (pid ${daemon.pid}) holds ${s.sandbox.lockPath} but does not answer`);
    } finally {
      daemon.child.kill('SIGCONT');
    }
    // Thawed, it is past its deadline and goes at once.
    expect(await exitWithin(daemon, EXIT_MARGIN_MS)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(existsSync(s.sandbox.lockPath)).toBe(false);
    socket.close();
  });

  it('with no daemon it says so and exits 0, without starting one', async () => {
    const s = hangingGitSetup();
    const stopped = await runMemctl(s.sandbox, ['stop']);
    expect(stopped).toEqual({ code: 0, stdout: 'memd is not running\n', stderr: '' });
    expect(existsSync(s.sandbox.lockPath)).toBe(false);
  });
});

describe('the deadline exit does not hang on a thread stuck in the kernel', () => {
  it('a step waiting on open() of a FIFO is cut off at the deadline (process.exit would hang there)', async () => {
    const s = hangingGitSetup();
    const fifo = join(s.sandbox.root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // A thread-pool open() of a FIFO with no writer never returns; a normal exit joins that thread.
    const script = `
      import { readFile } from 'node:fs/promises';
      import { createShutdown } from ${JSON.stringify(join(ROOT, 'dist/daemon/lifecycle/shutdown.js'))};
      const log = { debug() {}, info() {}, warn() {}, error: (msg, fields) => process.stderr.write(JSON.stringify({ msg, ...fields }) + '\\n'), close() {}, file: null };
      const shutdown = createShutdown(() => [{ name: 'read the fifo', run: () => readFile(${JSON.stringify(fifo)}).then(() => {}), pending: () => ['open() of the fifo'] }], log, (code) => process.exit(code), { deadlineMs: 300 });
      void shutdown('test');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      ),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 300 + EXIT_MARGIN_MS))),
    ]);
    clearTimeout(timer);
    if (exit === null) child.kill('SIGKILL');
    expect(exit, `still running ${Date.now() - started} ms in`).toEqual({ code: null, signal: 'SIGKILL' });
    expect(JSON.parse(stderr.trim().split('\n')[0] ?? '{}')).toMatchObject({
      stuck: 'read the fifo',
      waitingFor: ['open() of the fifo'],
    });
  });
});
