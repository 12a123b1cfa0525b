import { describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import type { EventTopic } from '../../../../shared/protocol/events.js';

describe('createBus', () => {
  it('delivers each event to every listener, in the order they listened', () => {
    const bus = createBus(() => {
      throw new Error('no listener should fail');
    });
    const seen: string[] = [];
    bus.listen((topic, payload) => seen.push(`a:${topic}:${JSON.stringify(payload)}`));
    bus.listen((topic) => seen.push(`b:${topic}`));
    bus.publish('memory.extracted', { sessionId: 's' });
    bus.publish('daemon.stopping', { reason: 'test' });
    expect(seen).toEqual([
      'a:memory.extracted:{"sessionId":"s"}',
      'b:memory.extracted',
      'a:daemon.stopping:{"reason":"test"}',
      'b:daemon.stopping',
    ]);
  });

  it('keeps delivering when a listener throws, and reports the error with its topic', () => {
    const reported: [unknown, EventTopic][] = [];
    const bus = createBus((error, topic) => reported.push([error, topic]));
    const failure = new Error('broken subscriber');
    const seen: string[] = [];
    bus.listen(() => seen.push('before'));
    bus.listen(() => {
      throw failure;
    });
    bus.listen(() => seen.push('after'));
    expect(() =>
      bus.publish('ingest.failed', {
        path: '/p/s.jsonl',
        sessionId: 's',
        offset: 0,
        length: 1,
        reason: 'invalid-json',
      }),
    ).not.toThrow();
    expect(seen).toEqual(['before', 'after']);
    expect(reported).toEqual([[failure, 'ingest.failed']]);
  });

  it('stops delivering to a listener once it unlistens, and only to that one', () => {
    const bus = createBus(() => {});
    const seen: string[] = [];
    const stopA = bus.listen(() => seen.push('a'));
    bus.listen(() => seen.push('b'));
    bus.publish('memory.extracted', {});
    stopA();
    bus.publish('memory.extracted', {});
    expect(seen).toEqual(['a', 'b', 'b']);
  });

  it('publishes to nobody without complaint', () => {
    const bus = createBus(() => {
      throw new Error('unexpected');
    });
    expect(() => bus.publish('memory.extracted', {})).not.toThrow();
  });
});
