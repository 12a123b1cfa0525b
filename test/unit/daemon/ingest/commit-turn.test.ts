import { describe, expect, it } from 'vitest';
import { commitTurn } from '../../../../daemon/ingest/commit-turn.js';

describe('commitTurn', () => {
  it('lets one commit run per turn of the event loop, with the loop running between them', async () => {
    const events: string[] = [];
    // Stands for what the loop runs between two turns (a request read from a socket): a timer due
    // no later than the one that gives the turn back. Made after it, it might fall due a
    // millisecond later, in a later turn than the second commit's, and the test would say nothing.
    setTimeout(() => events.push('between'), 0);
    await commitTurn();
    const second = commitTurn().then(() => events.push('second commit'));
    await Promise.resolve();
    expect(events).toEqual([]);
    await second;
    expect(events).toEqual(['between', 'second commit']);
  });

  it('gives turns to waiting commits one at a time', async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => commitTurn().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });

  it('gives the turn to the lowest rank waiting, a changed file before the backfill', async () => {
    await commitTurn();
    const order: string[] = [];
    await Promise.all([
      commitTurn(2).then(() => order.push('backfill begun third')),
      commitTurn(1).then(() => order.push('backfill begun second')),
      commitTurn(Number.NEGATIVE_INFINITY).then(() => order.push('changed file')),
    ]);
    expect(order).toEqual(['changed file', 'backfill begun second', 'backfill begun third']);
  });
});
