import { describe, expect, it } from 'vitest';
import { type LineSink, LineSplitter, type PendingLine } from '../../../../daemon/ingest/line-reader.js';

interface Seen {
  lines: { offset: number; text: string }[];
  tooLong: { offset: number; length: number }[];
}

function recorder(): { sink: LineSink; seen: Seen } {
  const seen: Seen = { lines: [], tooLong: [] };
  return {
    seen,
    sink: {
      line: (line, offset) => seen.lines.push({ offset, text: line.toString('latin1') }),
      tooLong: (offset, length) => seen.tooLong.push({ offset, length }),
    },
  };
}

/** Feeds `text` in chunks of `size` bytes through one reused buffer, as the tailer does. */
function feed(splitter: LineSplitter, bytes: Buffer, size: number): void {
  const shared = Buffer.alloc(size);
  for (let from = 0; from < bytes.length; from += size) {
    const n = bytes.copy(shared, 0, from, Math.min(bytes.length, from + size));
    splitter.push(shared.subarray(0, n));
    // Scribble over the buffer: nothing may still point into it.
    shared.fill(0x23);
  }
}

function split(text: string, chunk: number, max = 1_000): Seen & { complete: number; next: number } {
  const { sink, seen } = recorder();
  const splitter = new LineSplitter(sink, max, 0);
  feed(splitter, Buffer.from(text, 'latin1'), chunk);
  return { ...seen, complete: splitter.completeOffset, next: splitter.nextOffset };
}

describe('LineSplitter', () => {
  const text = 'alpha\nbe\n\ngamma-gamma-gamma\nd\nhalf';
  const expected = [
    { offset: 0, text: 'alpha' },
    { offset: 6, text: 'be' },
    { offset: 9, text: '' },
    { offset: 10, text: 'gamma-gamma-gamma' },
    { offset: 28, text: 'd' },
  ];

  it.each([1, 2, 3, 5, 7, 16, 64])('gives the same lines and offsets for chunks of %i bytes', (chunk) => {
    const result = split(text, chunk);
    expect(result.lines).toEqual(expected);
    expect(result.tooLong).toEqual([]);
    // The incomplete last line is held: complete lines end at 30, bytes were fed up to 34.
    expect(result.complete).toBe(30);
    expect(result.next).toBe(34);
  });

  it('hands out a line inside one chunk as a view of that chunk, without a copy', () => {
    const chunk = Buffer.from('one\ntwo\n');
    const views: Buffer[] = [];
    const splitter = new LineSplitter({ line: (line) => views.push(line), tooLong: () => {} }, 100, 0);
    splitter.push(chunk);
    expect(views.map((view) => view.buffer === chunk.buffer)).toEqual([true, true]);
  });

  it('starts counting offsets where it is told to', () => {
    const { sink, seen } = recorder();
    const splitter = new LineSplitter(sink, 100, 1_000);
    splitter.push(Buffer.from('x\nyy\n'));
    expect(seen.lines).toEqual([
      { offset: 1_000, text: 'x' },
      { offset: 1_002, text: 'yy' },
    ]);
    expect(splitter.completeOffset).toBe(1_005);
  });

  it.each([1, 3, 4, 100])(
    'reports a line over the limit with its offset and length, and carries on (chunks of %i)',
    (chunk) => {
      const result = split('ok\n0123456789\nfine\n', chunk, 9);
      expect(result.lines).toEqual([
        { offset: 0, text: 'ok' },
        { offset: 14, text: 'fine' },
      ]);
      expect(result.tooLong).toEqual([{ offset: 3, length: 10 }]);
      expect(result.complete).toBe(19);
    },
  );

  it('accepts a line of exactly the limit', () => {
    const result = split('012345678\n', 4, 9);
    expect(result.lines).toEqual([{ offset: 0, text: '012345678' }]);
    expect(result.tooLong).toEqual([]);
  });

  it('keeps no bytes of a line once it is over the limit', () => {
    const { sink } = recorder();
    const splitter = new LineSplitter(sink, 10, 0);
    feed(splitter, Buffer.from('x'.repeat(1_000)), 7);
    expect(splitter.pending()).toEqual({ offset: 0, length: 1_000, bytes: null });
  });

  it.each([1, 2, 5, 9])('resumes from a pending line exactly as if it had read on (cut after %i bytes)', (cut) => {
    const bytes = Buffer.from('first\nsecond line\nthird\n');
    const whole = split(bytes.toString('latin1'), 4);
    const { sink, seen } = recorder();
    const before = new LineSplitter(sink, 100, 0);
    feed(before, bytes.subarray(0, 6 + cut), 3);
    const pending: PendingLine = before.pending();
    expect(pending.offset).toBe(6);
    expect(pending.length).toBe(cut);
    const after = new LineSplitter(sink, 100, 0, pending);
    expect(after.nextOffset).toBe(6 + cut);
    feed(after, bytes.subarray(6 + cut), 3);
    expect(seen.lines).toEqual(whole.lines);
    expect(after.completeOffset).toBe(bytes.length);
  });

  it('resumes a pending line that is already over the limit without its bytes', () => {
    const { sink, seen } = recorder();
    const after = new LineSplitter(sink, 10, 0, { offset: 50, length: 40, bytes: null });
    after.push(Buffer.from('tail\nnext\n'));
    expect(seen.tooLong).toEqual([{ offset: 50, length: 44 }]);
    expect(seen.lines).toEqual([{ offset: 95, text: 'next' }]);
  });
});
