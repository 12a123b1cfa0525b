import { describe, expect, it } from 'vitest';
import { createDomainBus } from '../../../../daemon/bus/domain-events.js';
import { checkHooksOnCommit } from '../../../../daemon/handoff/reactions.js';

/** The hooks service as the reaction sees it: the sessions it was asked about, in order; each check settles when `settle` is called. */
function recordingHooks() {
  const checked: string[] = [];
  const settles: (() => void)[] = [];
  return {
    checked,
    settleNext: () => settles.shift()?.(),
    hooks: {
      onSessionChanged(sessionId: string): Promise<void> {
        checked.push(sessionId);
        return new Promise<void>((resolve) => settles.push(resolve));
      },
    },
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('checkHooksOnCommit', () => {
  it('checks a live commit at once', () => {
    const bus = createDomainBus(() => {});
    const recording = recordingHooks();
    checkHooksOnCommit(bus, { hooks: recording.hooks });
    bus.publish('transcripts.committed', { sessionIds: ['a', 'b'], live: true });
    expect(recording.checked).toEqual(['a', 'b']);
  });

  it('checks the sessions a backfill changed once it is done, one at a time and each once', async () => {
    const bus = createDomainBus(() => {});
    const recording = recordingHooks();
    checkHooksOnCommit(bus, { hooks: recording.hooks });
    bus.publish('transcripts.committed', { sessionIds: ['a'], live: false });
    bus.publish('transcripts.committed', { sessionIds: ['b', 'a'], live: false });
    expect(recording.checked).toEqual([]);

    bus.publish('transcripts.backfilled', {});
    expect(recording.checked).toEqual(['a']);
    recording.settleNext();
    await turn();
    expect(recording.checked).toEqual(['a', 'b']);
    recording.settleNext();
    await turn();
    expect(recording.checked).toEqual(['a', 'b']);
  });

  it('checks nothing more once stopped', async () => {
    const bus = createDomainBus(() => {});
    const recording = recordingHooks();
    const stop = checkHooksOnCommit(bus, { hooks: recording.hooks });
    bus.publish('transcripts.committed', { sessionIds: ['a', 'b'], live: false });
    bus.publish('transcripts.backfilled', {});
    stop();
    recording.settleNext();
    await turn();
    bus.publish('transcripts.committed', { sessionIds: ['c'], live: true });
    expect(recording.checked).toEqual(['a']);
  });
});
