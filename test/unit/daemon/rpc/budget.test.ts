import { describe, expect, it } from 'vitest';
import {
  type BudgetMember,
  CONNECTION_SHARE_BYTES,
  createAnswerBudget,
  HEAVY_ANSWER_RESERVE_BYTES,
  MAX_WAITING_PER_CONNECTION,
  type Ticket,
} from '../../../../daemon/rpc/budget.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';

const MIB = 1024 * 1024;

function member(id: number, queued = 0): BudgetMember & { queued: number } {
  return {
    id,
    queued,
    queuedBytes() {
      return this.queued;
    },
  };
}

/** Settles the promise's state into something a test can read synchronously after a tick. */
function track<T>(promise: Promise<T>): { state: 'pending' | 'done' | 'failed'; value?: T; error?: unknown } {
  const tracked: { state: 'pending' | 'done' | 'failed'; value?: T; error?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(tracked, { state: 'done', value }),
    (error: unknown) => Object.assign(tracked, { state: 'failed', error }),
  );
  return tracked;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const signal = () => new AbortController().signal;

describe('answer budget', () => {
  it('names the heavy methods and leaves cheap ones alone', () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 64 * MIB, maxHeavyRequests: 2 });
    for (const method of [
      'export.session',
      'search.context',
      'toolResults.get',
      'compact.micro',
      'compact.auto',
      'archive.restore',
      'archive.verify',
    ])
      expect(budget.isHeavy(method)).toBe(true);
    for (const method of [
      'daemon.status',
      'daemon.version',
      'sessions.list',
      'sessions.get',
      'compact.thresholds',
      'handoff.status',
    ])
      expect(budget.isHeavy(method)).toBe(false);
  });

  it('runs at most maxHeavyRequests at once and starts the next when one finishes', async () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 1024 * MIB, maxHeavyRequests: 2 });
    const members = [member(1), member(2), member(3)];
    for (const m of members) budget.join(m);
    const [a, b, c] = members.map((m) => track(budget.admit(m, 'export.session', signal())));
    await tick();
    expect([a?.state, b?.state, c?.state]).toEqual(['done', 'done', 'pending']);
    expect(budget.stats()).toMatchObject({
      heavyRunning: 2,
      heavyWaiting: 1,
      reservedBytes: 2 * HEAVY_ANSWER_RESERVE_BYTES,
    });
    (a?.value as Ticket).sent();
    await tick();
    expect(c?.state).toBe('done');
  });

  it('holds back a connection whose answers are unread, and lets the others by', async () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 1024 * MIB, maxHeavyRequests: 4 });
    const stalled = member(1, CONNECTION_SHARE_BYTES + 1);
    const reader = member(2);
    budget.join(stalled);
    budget.join(reader);
    const held = track(budget.admit(stalled, 'export.session', signal()));
    const served = track(budget.admit(reader, 'export.session', signal()));
    await tick();
    expect([held.state, served.state]).toEqual(['pending', 'done']);
    stalled.queued = 0;
    budget.wake();
    await tick();
    expect(held.state).toBe('done');
  });

  it('answers Busy with a retry hint when unread answers fill the budget and nothing runs', async () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 64 * MIB, maxHeavyRequests: 2 });
    const flooders = [member(1, 30 * MIB), member(2, 30 * MIB)];
    const reader = member(3);
    for (const m of [...flooders, reader]) budget.join(m);
    const refused = track(budget.admit(reader, 'export.session', signal()));
    await tick();
    expect(refused.state).toBe('failed');
    expect(refused.error).toBeInstanceOf(RpcError);
    expect(refused.error).toMatchObject({
      code: ErrorCode.Busy,
      kind: 'Busy',
      data: { retryAfterMs: expect.any(Number), method: 'export.session' },
    });
    expect(budget.stats().busyAnswers).toBe(1);
    // The flooders leave: their bytes no longer count.
    for (const m of flooders) budget.leave(m);
    expect((await budget.admit(reader, 'export.session', signal())).sent).toBeTypeOf('function');
  });

  it('makes a request wait, not fail, while running ones hold the reservations', async () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 2 * HEAVY_ANSWER_RESERVE_BYTES, maxHeavyRequests: 4 });
    const [a, b] = [member(1), member(2)];
    budget.join(a);
    budget.join(b);
    const first = await budget.admit(a, 'export.session', signal());
    const second = await budget.admit(b, 'export.session', signal());
    const third = track(budget.admit(b, 'export.session', signal()));
    await tick();
    expect(third.state).toBe('pending');
    first.sent();
    await tick();
    expect(third.state).toBe('done');
    second.sent();
  });

  it('refuses a connection more waiting requests than its share', async () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 1024 * MIB, maxHeavyRequests: 1 });
    const flooder = member(1, CONNECTION_SHARE_BYTES + 1);
    budget.join(flooder);
    const waiting = Array.from({ length: MAX_WAITING_PER_CONNECTION }, () =>
      track(budget.admit(flooder, 'export.session', signal())),
    );
    await expect(budget.admit(flooder, 'export.session', signal())).rejects.toMatchObject({ code: ErrorCode.Busy });
    await tick();
    expect(waiting.every((entry) => entry.state === 'pending')).toBe(true);
  });

  it('drops what a connection waits for when it leaves or cancels', async () => {
    const budget = createAnswerBudget({ maxAnswerBytes: 1024 * MIB, maxHeavyRequests: 1 });
    const [a, b] = [member(1), member(2)];
    budget.join(a);
    budget.join(b);
    const running = await budget.admit(a, 'export.session', signal());
    const cancel = new AbortController();
    const cancelled = track(budget.admit(b, 'export.session', cancel.signal));
    const dropped = track(budget.admit(b, 'search.context', signal()));
    cancel.abort();
    await tick();
    expect(cancelled.error).toMatchObject({ code: ErrorCode.Cancelled });
    budget.leave(b);
    await tick();
    expect(dropped.error).toMatchObject({ code: ErrorCode.Cancelled });
    expect(budget.stats().heavyWaiting).toBe(0);
    running.sent();
    expect(budget.stats()).toMatchObject({ heavyRunning: 0, reservedBytes: 0 });
  });
});
