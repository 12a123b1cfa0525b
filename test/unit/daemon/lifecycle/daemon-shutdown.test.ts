/**
 * The daemon's shutdown steps over a parts record of fakes: their order is what the deadline's log
 * names and what the next start relies on (ingest stopped before its followers flush, the database
 * closed before the lock is released).
 */
import { describe, expect, it } from 'vitest';
import { type StoppingParts, shutdownSteps } from '../../../../daemon/lifecycle/daemon-shutdown.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

function fakeParts(calls: string[]): StoppingParts {
  const call = (name: string) => () => void calls.push(name);
  return {
    config: { shutdownGraceMs: 10, shutdownDeadlineMs: 100 },
    log: fakeLogger(),
    bus: { publish: call('bus.publish') },
    rpc: {
      server: {
        stopAccepting: async (own) => void calls.push(`rpc.stopAccepting(${own})`),
        drain: async () => {
          calls.push('rpc.drain');
          return true;
        },
        running: () => [],
        closeConnections: call('rpc.closeConnections'),
      },
    },
    socket: { isOwn: () => false, remove: call('socket.remove') },
    ingest: {
      watcher: { stop: call('watcher.stop') },
      ingestor: { stop: call('ingestor.stop'), progress: () => ({ filesPending: 0 }) },
    },
    followers: [
      { stopStep: 'stop the search index build', stop: call('search.stop') },
      { stopStep: 'archive what was read', stop: call('archive.stop') },
      { stopStep: 'stop the usage book build', stop: call('usage.stop') },
    ],
    sessions: { close: call('sessions.close') },
    exports: { close: call('exports.close') },
    aggregates: { close: call('aggregates.close') },
    compaction: { close: call('compaction.close') },
    extraction: { close: call('extraction.close'), status: () => ({ running: ['s1'] }) },
    dbHealth: { stop: call('dbHealth.stop') },
    store: { close: call('store.close') },
    lock: { release: call('lock.release') },
  };
}

describe('shutdownSteps', () => {
  it('stops the parts in the order the deadline log names, the followers after ingest in their list order', async () => {
    const calls: string[] = [];
    const steps = shutdownSteps(fakeParts(calls), 'SIGTERM');
    expect(steps.map((step) => step.name)).toEqual([
      'announce',
      'stop accepting',
      'finish requests',
      'close connections',
      'stop ingest',
      'stop the search index build',
      'archive what was read',
      'stop the usage book build',
      'stop session updates',
      'drop kept export reports',
      'stop background context counts',
      'stop compactions',
      'stop extraction',
      'close database',
      'remove socket',
      'release lock',
      'log stopped',
    ]);
    for (const step of steps) await step.run();
    expect(calls).toEqual([
      'bus.publish',
      'rpc.stopAccepting(false)',
      'rpc.drain',
      'rpc.closeConnections',
      'watcher.stop',
      'ingestor.stop',
      'search.stop',
      'archive.stop',
      'usage.stop',
      'sessions.close',
      'exports.close',
      'aggregates.close',
      'compaction.close',
      'extraction.close',
      'dbHealth.stop',
      'store.close',
      'socket.remove',
      'lock.release',
    ]);
  });

  it('marks the steps that run past the deadline too, and names what extraction waits for', () => {
    const steps = shutdownSteps(fakeParts([]), 'SIGTERM');
    expect(steps.filter((step) => step.always === true).map((step) => step.name)).toEqual([
      'close connections',
      'close database',
      'remove socket',
      'release lock',
      'log stopped',
    ]);
    expect(steps.find((step) => step.name === 'stop extraction')?.pending?.()).toEqual([
      'extraction job of session s1',
    ]);
  });
});
