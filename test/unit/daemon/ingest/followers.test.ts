/** The followers of the index are started after the backfill and fed each commit, in their list's order. */
import { describe, expect, it } from 'vitest';
import { createDomainBus } from '../../../../daemon/bus/domain-events.js';
import { followIndex, type IndexFollower } from '../../../../daemon/ingest/followers.js';

function follower(name: string, calls: string[], committed = true): IndexFollower {
  return {
    stopStep: `stop ${name}`,
    start: () => void calls.push(`${name}.start`),
    ...(committed ? { committed: () => void calls.push(`${name}.committed`) } : {}),
    stop: () => void calls.push(`${name}.stop`),
  };
}

describe('followIndex', () => {
  it('starts the followers on the backfill and feeds them each live commit, in order; one without committed is not fed', () => {
    const calls: string[] = [];
    const events = createDomainBus((error) => {
      throw error;
    });
    const stop = followIndex(events, [
      follower('search', calls, false),
      follower('archive', calls),
      follower('usage', calls),
    ]);
    // A backfill's commits are not fed (the backfill has the cores): its end starts them, or tells them.
    events.publish('transcripts.committed', { sessionIds: ['s'], live: false });
    events.publish('transcripts.backfilled', {});
    expect(calls).toEqual(['search.start', 'archive.start', 'usage.start']);
    events.publish('transcripts.committed', { sessionIds: ['s'], live: true });
    events.publish('transcripts.committed', { sessionIds: ['s'], live: false });
    events.publish('transcripts.committed', { sessionIds: [], live: true });
    expect(calls.slice(3)).toEqual(['archive.committed', 'usage.committed', 'archive.committed', 'usage.committed']);
    stop();
    events.publish('transcripts.committed', { sessionIds: ['s'], live: true });
    expect(calls).toHaveLength(7);
  });
});
