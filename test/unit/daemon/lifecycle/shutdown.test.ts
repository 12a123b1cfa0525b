import { describe, expect, it } from 'vitest';
import { createShutdown, inParallel, type ShutdownStep } from '../../../../daemon/lifecycle/shutdown.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

function recorder() {
  const calls: string[] = [];
  const exits: number[] = [];
  const step = (name: string, run: () => void | Promise<void> = () => {}): ShutdownStep => ({
    name,
    run: () => {
      calls.push(name);
      return run();
    },
  });
  return { calls, exits, exit: (code: number) => void exits.push(code), step };
}

describe('createShutdown', () => {
  it('runs the steps in order, awaiting each, then exits 0', async () => {
    const { calls, exits, exit, step } = recorder();
    let releaseSlow: () => void = () => {};
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const shutdown = createShutdown(() => [step('stop', () => slow), step('flush'), step('close')], fakeLogger(), exit);
    const done = shutdown('SIGTERM');
    // The async step has started; the next one must wait for it.
    expect(calls).toEqual(['stop']);
    releaseSlow();
    await done;
    expect(calls).toEqual(['stop', 'flush', 'close']);
    expect(exits).toEqual([0]);
  });

  it('runs once however often it is asked, with the first reason', async () => {
    const { calls, exits, exit, step } = recorder();
    const reasons: string[] = [];
    const log = fakeLogger();
    const shutdown = createShutdown(
      (reason) => {
        reasons.push(reason);
        return [step('a')];
      },
      log,
      exit,
    );
    expect(shutdown.started).toBe(false);
    const first = shutdown('SIGTERM');
    const second = shutdown('SIGINT');
    const third = shutdown('daemon.shutdown', 3);
    expect(shutdown.started).toBe(true);
    expect(second).toBe(first);
    expect(third).toBe(first);
    await Promise.all([first, second, third]);
    expect(reasons).toEqual(['SIGTERM']);
    expect(calls).toEqual(['a']);
    expect(exits).toEqual([0]);
    expect(log.at('info')).toEqual([{ level: 'info', msg: 'shutting down', fields: { reason: 'SIGTERM' } }]);
  });

  it('logs a failing step, still runs the later ones and exits 1', async () => {
    const { calls, exits, exit, step } = recorder();
    const log = fakeLogger();
    const failure = new Error('disk gone');
    const shutdown = createShutdown(
      () => [
        step('first'),
        step('sync fail', () => {
          throw failure;
        }),
        step('async fail', () => Promise.reject(new Error('later'))),
        step('last'),
      ],
      log,
      exit,
    );
    await shutdown('SIGTERM');
    expect(calls).toEqual(['first', 'sync fail', 'async fail', 'last']);
    expect(exits).toEqual([1]);
    expect(log.at('error').map((line) => line.fields?.step)).toEqual(['sync fail', 'async fail']);
    expect(log.at('error')[0]?.fields?.error).toBe(failure);
  });

  it('keeps a non-zero exit code it was given, whether or not a step fails', async () => {
    const ok = recorder();
    await createShutdown(() => [ok.step('a')], fakeLogger(), ok.exit)('fatal', 2);
    expect(ok.exits).toEqual([2]);
    const failing = recorder();
    await createShutdown(
      () => [
        failing.step('a', () => {
          throw new Error('x');
        }),
      ],
      fakeLogger(),
      failing.exit,
    )('fatal', 2);
    expect(failing.exits).toEqual([2]);
  });
});

describe('the shutdown deadline', () => {
  /** A shutdown whose forced exit resolves `forced`, so a test waits for it instead of sleeping. */
  function withDeadline(deadlineMs: number, steps: (r: ReturnType<typeof recorder>) => ShutdownStep[]) {
    const r = recorder();
    const log = fakeLogger();
    let forceExit: () => void = () => {};
    const forced = new Promise<void>((resolve) => (forceExit = resolve));
    const shutdown = createShutdown(() => steps(r), log, r.exit, { deadlineMs, forceExit });
    return { ...r, log, forced, shutdown };
  }

  it('past the deadline logs the stuck step and what it waits for, runs the always-steps not yet run, and forces the exit', async () => {
    const never = new Promise<void>(() => {});
    const { calls, exits, log, forced, shutdown } = withDeadline(50, (r) => [
      r.step('announce'),
      { ...r.step('stop ingest', () => never), pending: () => ['lane 0: /p/a.jsonl'] },
      r.step('stop extraction'),
      { ...r.step('close database'), always: true },
      { ...r.step('release lock'), always: true },
    ]);
    void shutdown('SIGTERM');
    await forced;
    expect(calls).toEqual(['announce', 'stop ingest', 'close database', 'release lock']);
    // The normal exit never runs: the forced one replaced it.
    expect(exits).toEqual([]);
    expect(log.at('error')).toEqual([
      {
        level: 'error',
        msg: 'shutdown did not finish within its deadline; exiting anyway',
        fields: {
          reason: 'SIGTERM',
          deadlineMs: 50,
          stuck: 'stop ingest',
          waitingFor: ['lane 0: /p/a.jsonl'],
          notRun: ['stop extraction', 'close database', 'release lock'],
        },
      },
    ]);
  });

  it('an always-step that throws on the deadline path is logged and the rest still run', async () => {
    const { calls, log, forced, shutdown } = withDeadline(20, (r) => [
      r.step('stuck', () => new Promise<void>(() => {})),
      {
        ...r.step('close database', () => {
          throw new Error('busy');
        }),
        always: true,
      },
      { ...r.step('release lock'), always: true },
    ]);
    void shutdown('SIGTERM');
    await forced;
    expect(calls).toEqual(['stuck', 'close database', 'release lock']);
    expect(log.at('error').map((line) => line.fields?.step ?? line.msg)).toEqual([
      'shutdown did not finish within its deadline; exiting anyway',
      'close database',
    ]);
  });

  it('a shutdown that finishes in time exits normally and never forces', async () => {
    let forcedExit = false;
    const r = recorder();
    await createShutdown(() => [r.step('a', () => Promise.resolve())], fakeLogger(), r.exit, {
      deadlineMs: 1_000,
      forceExit: () => (forcedExit = true),
    })('SIGTERM');
    expect(r.exits).toEqual([0]);
    expect(forcedExit).toBe(false);
  });
});

describe('inParallel', () => {
  it('runs its parts together and names the ones not settled yet', async () => {
    let finishWatcher: () => void = () => {};
    const watcher = new Promise<void>((resolve) => (finishWatcher = resolve));
    const step = inParallel([
      { name: 'watcher', run: () => watcher },
      { name: 'lanes', run: () => Promise.resolve(), detail: () => '2 transcripts being read' },
    ]);
    expect(step.pending?.()).toEqual([]);
    const done = step.run();
    expect(step.pending?.()).toEqual(['watcher', 'lanes: 2 transcripts being read']);
    await Promise.resolve();
    await Promise.resolve();
    expect(step.pending?.()).toEqual(['watcher']);
    finishWatcher();
    await done;
    expect(step.pending?.()).toEqual([]);
  });

  it('fails with the first failure, after every part settled', async () => {
    let otherDone = false;
    const step = inParallel([
      { name: 'a', run: () => Promise.reject(new Error('a broke')) },
      { name: 'b', run: async () => void (otherDone = true) },
    ]);
    await expect(step.run()).rejects.toThrow('a broke');
    expect(otherDone).toBe(true);
  });
});
