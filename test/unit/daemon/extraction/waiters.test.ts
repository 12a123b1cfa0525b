import { describe, expect, it } from 'vitest';
import { createExtractionWaiters } from '../../../../daemon/extraction/waiters.js';

describe('the clients waiting for an extraction', () => {
  it('stops the job only when the last waiting client cancels; the others are told the outcome', async () => {
    const waiters = createExtractionWaiters();
    let lastLeft = 0;
    const first = new AbortController();
    const second = new AbortController();
    const one = waiters.wait('s', first.signal, () => lastLeft++).catch((error: unknown) => error);
    const two = waiters.wait('s', second.signal, () => lastLeft++);
    first.abort();
    expect(await one).toMatchObject({ message: 'the extraction was cancelled by its caller' });
    expect(lastLeft).toBe(0);
    waiters.settle('s', null);
    await expect(two).resolves.toBeUndefined();
    // Settled: a later abort changes nothing.
    second.abort();
    expect(lastLeft).toBe(0);
    expect(waiters.has('s')).toBe(false);
  });

  it('calls onLastLeft when the only client cancels, even one already cancelled', async () => {
    const waiters = createExtractionWaiters();
    let lastLeft = 0;
    const cancel = new AbortController();
    const waiting = waiters.wait('s', cancel.signal, () => lastLeft++).catch(() => 'cancelled');
    cancel.abort();
    expect(await waiting).toBe('cancelled');
    expect(lastLeft).toBe(1);
    await expect(waiters.wait('t', AbortSignal.abort(), () => lastLeft++)).rejects.toThrow('cancelled');
    expect(lastLeft).toBe(2);
    expect(waiters.sessions()).toEqual([]);
  });

  it('passes a failed job’s error to everyone waiting, with or without a signal', async () => {
    const waiters = createExtractionWaiters();
    const withSignal = waiters.wait('s', new AbortController().signal, () => {});
    const without = waiters.wait('s', undefined, () => {});
    waiters.settle('s', new Error('the model failed'));
    await expect(withSignal).rejects.toThrow('the model failed');
    await expect(without).rejects.toThrow('the model failed');
  });
});
