import { describe, expect, it } from 'vitest';
import { createShutdown, type ShutdownStep } from '../../../../daemon/lifecycle/shutdown.js';
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
