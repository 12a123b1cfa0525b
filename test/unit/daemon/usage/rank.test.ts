/** Which entry counts for a response (daemon/usage/rank.ts); the whole rule is checked by book.property.test.ts. */
import { describe, expect, it } from 'vitest';
import { SLOT_MS } from '../../../../daemon/usage/days.js';
import {
  type Candidate,
  candidateOf,
  keyOf,
  outranks,
  outranksInFile,
  type ResponseEntry,
} from '../../../../daemon/usage/rank.js';

const usage = (output: number, input = 10) => ({
  input,
  output,
  cacheCreation: 100,
  cacheRead: 1_000,
  cache5m: 0,
  cache1h: 100,
});
const entry = (over: Partial<ResponseEntry> = {}): ResponseEntry => ({
  offset: 100,
  type: 'assistant',
  timestamp: '2026-03-01T23:59:59.000Z',
  messageId: 'msg_1',
  requestId: 'req_1',
  model: 'claude-sonnet-4-5',
  usage: usage(300),
  isSidechain: false,
  ...over,
});
const candidate = (over: Partial<ResponseEntry> = {}, session = 's', path = '/p/s.jsonl') =>
  candidateOf(entry(over), session, path) as Candidate;

describe('keyOf', () => {
  it('is a signed 64-bit integer in decimal, the same for the same text and different for others', () => {
    const keys = new Set<string>();
    for (let n = 0; n < 20_000; n++) {
      const key = keyOf(`response\0msg_${n}\0req_${n}`);
      expect(BigInt(key)).toBe(BigInt.asIntN(64, BigInt(key)));
      keys.add(key);
    }
    expect(keys.size).toBe(20_000);
    expect(keyOf('response\0msg_1\0req_1')).toBe(keyOf('response\0msg_1\0req_1'));
  });
});

describe('candidateOf', () => {
  it('keys a response by message and request, in any file or session', () => {
    expect(candidate({}, 's').key).toBe(
      candidate({ offset: 900, timestamp: '2026-03-02T10:00:00.000Z' }, 'other', '/q/o.jsonl').key,
    );
    expect(candidate({ requestId: 'req_2' }).key).not.toBe(candidate().key);
    expect(candidate().slot).toBe(Date.parse('2026-03-01T23:45:00.000Z') / SLOT_MS);
  });

  it('without a requestId, keys by session and time; without a message id, each entry is its own', () => {
    const noRequest = candidate({ requestId: null });
    expect(candidate({ requestId: null, offset: 500 }).key).toBe(noRequest.key);
    expect(candidate({ requestId: null }, 'other').key).not.toBe(noRequest.key);
    expect(candidate({ requestId: null, timestamp: '2026-03-01T23:59:58.000Z' }).key).not.toBe(noRequest.key);
    expect(candidate({ messageId: null }).key).not.toBe(candidate({ messageId: null, offset: 200 }).key);
  });

  it('is null for what is not an API response, or has no time', () => {
    expect(candidateOf(entry({ type: 'user' }), 's', '/p')).toBeNull();
    expect(candidateOf(entry({ usage: null }), 's', '/p')).toBeNull();
    expect(candidateOf(entry({ model: '<synthetic>' }), 's', '/p')).toBeNull();
    expect(candidateOf(entry({ timestamp: null }), 's', '/p')).toBeNull();
    expect(candidateOf(entry({ timestamp: 'yesterday' }), 's', '/p')).toBeNull();
    expect(candidate({ model: null }).model).toBe('');
  });
});

describe('outranks', () => {
  it("prefers the main thread's entry, then the most tokens, then the first by path and line", () => {
    const placeholder = candidate({ usage: usage(1), offset: 100 });
    const final = candidate({ usage: usage(300), offset: 200 });
    expect(outranksInFile(final, placeholder)).toBe(true);
    expect(outranksInFile(placeholder, final)).toBe(false);
    const replay = candidate({ usage: usage(5_000), isSidechain: true });
    expect(
      outranks(
        { candidate: final, path: '/p/b.jsonl', device: 'd' },
        { candidate: replay, path: '/p/a.jsonl', device: 'd' },
      ),
    ).toBe(true);
    expect(
      outranks(
        { candidate: replay, path: '/p/a.jsonl', device: 'd' },
        { candidate: final, path: '/p/b.jsonl', device: 'd' },
      ),
    ).toBe(false);
    const copy = candidate({ usage: usage(300), offset: 50 });
    expect(
      outranks(
        { candidate: copy, path: '/p/a.jsonl', device: 'd' },
        { candidate: final, path: '/p/b.jsonl', device: 'd' },
      ),
    ).toBe(true);
    expect(
      outranks(
        { candidate: final, path: '/p/b.jsonl', device: 'd' },
        { candidate: copy, path: '/p/a.jsonl', device: 'd' },
      ),
    ).toBe(false);
    expect(
      outranks(
        { candidate: copy, path: '/p/b.jsonl', device: 'd' },
        { candidate: final, path: '/p/b.jsonl', device: 'd' },
      ),
    ).toBe(true);
    // Tokens, not output alone: a larger prompt with less output wins (ccusage's total).
    expect(outranksInFile(candidate({ usage: usage(200, 5_000) }), candidate({ usage: usage(300) }))).toBe(true);
  });

  it('between two devices, ranks by device id where paths would decide, the same from either side', () => {
    const here = candidate({ usage: usage(300), offset: 900 });
    const there = candidate({ usage: usage(300), offset: 100 });
    // This machine's file sorts first by path; the other device's id sorts first: the id decides.
    const mine = { candidate: here, path: '/home/u/.claude/projects/-p/s.jsonl', device: 'b000000000000000' };
    const theirs = {
      candidate: there,
      path: '/state/sync/devices/a000000000000000/-p/s.jsonl',
      device: 'a000000000000000',
    };
    expect(outranks(theirs, mine)).toBe(true);
    expect(outranks(mine, theirs)).toBe(false);
    // The main thread and the most tokens still come first, whatever the device.
    const more = candidate({ usage: usage(301) });
    expect(outranks({ ...mine, candidate: more }, theirs)).toBe(true);
    const sidechain = candidate({ usage: usage(300), isSidechain: true });
    expect(outranks({ ...theirs, candidate: sidechain }, mine)).toBe(false);
    // The same path under two devices is two files: the id decides, not the lines' order.
    expect(outranks({ ...mine, path: theirs.path }, theirs)).toBe(false);
  });
});
