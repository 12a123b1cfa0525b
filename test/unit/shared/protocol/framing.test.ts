import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_FRAME_BYTES } from '../../../../shared/protocol/framing.js';

const buf = (text: string) => Buffer.from(text, 'utf8');

describe('LineSplitter', () => {
  it('caps frames at 16 MiB by default', () => {
    expect(MAX_FRAME_BYTES).toBe(16 * 1024 * 1024);
  });

  it('joins a line split across chunks', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(buf('{"a":'))).toEqual({ lines: [], overflow: false });
    expect(splitter.bufferedBytes).toBe(5);
    expect(splitter.push(buf('1'))).toEqual({ lines: [], overflow: false });
    expect(splitter.push(buf('}\n'))).toEqual({ lines: ['{"a":1}'], overflow: false });
    expect(splitter.bufferedBytes).toBe(0);
  });

  it('returns every line of a chunk and keeps the unfinished tail', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(buf('one\ntwo\nthr'))).toEqual({ lines: ['one', 'two'], overflow: false });
    expect(splitter.bufferedBytes).toBe(3);
    expect(splitter.push(buf('ee\nfour\n'))).toEqual({ lines: ['three', 'four'], overflow: false });
    expect(splitter.bufferedBytes).toBe(0);
  });

  it('decodes a multibyte character split across chunks', () => {
    const bytes = buf('"héllo €𝄞"\n');
    const splitter = new LineSplitter();
    const lines: string[] = [];
    // Split inside every character: one byte per chunk.
    for (const byte of bytes) lines.push(...splitter.push(Buffer.from([byte])).lines);
    expect(lines).toEqual(['"héllo €𝄞"']);
  });

  it('decodes a multibyte character split in the middle of a two-chunk line', () => {
    const bytes = buf('€\n');
    const splitter = new LineSplitter();
    expect(splitter.push(bytes.subarray(0, 1)).lines).toEqual([]);
    expect(splitter.push(bytes.subarray(1)).lines).toEqual(['€']);
  });

  it('skips empty lines', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(buf('\n\na\n\n\nb\n\n')).lines).toEqual(['a', 'b']);
    expect(splitter.push(buf('\n')).lines).toEqual([]);
    expect(splitter.bufferedBytes).toBe(0);
  });

  describe('with a cap', () => {
    const CAP = 10;

    it('accepts a line of exactly the cap, in one chunk or split', () => {
      expect(new LineSplitter(CAP).push(buf(`${'x'.repeat(CAP)}\n`))).toEqual({
        lines: ['x'.repeat(CAP)],
        overflow: false,
      });
      const split = new LineSplitter(CAP);
      expect(split.push(buf('x'.repeat(CAP)))).toEqual({ lines: [], overflow: false });
      expect(split.push(buf('\n'))).toEqual({ lines: ['x'.repeat(CAP)], overflow: false });
    });

    it('overflows on a complete line one byte over the cap', () => {
      expect(new LineSplitter(CAP).push(buf(`${'x'.repeat(CAP + 1)}\n`)).overflow).toBe(true);
    });

    it('overflows on a line over the cap that arrives in pieces', () => {
      const splitter = new LineSplitter(CAP);
      expect(splitter.push(buf('x'.repeat(6))).overflow).toBe(false);
      expect(splitter.push(buf(`${'x'.repeat(5)}\n`)).overflow).toBe(true);
    });

    it('overflows on an unfinished frame past the cap, without buffering it', () => {
      const splitter = new LineSplitter(CAP);
      expect(splitter.push(buf('x'.repeat(CAP))).overflow).toBe(false);
      expect(splitter.push(buf('x')).overflow).toBe(true);
    });

    it('overflows on one newline-less chunk larger than the cap', () => {
      expect(new LineSplitter(CAP).push(buf('x'.repeat(CAP * 3))).overflow).toBe(true);
    });

    it('returns the lines completed before the overflowing one', () => {
      const result = new LineSplitter(CAP).push(buf(`ok\n${'x'.repeat(CAP + 1)}`));
      expect(result).toEqual({ lines: ['ok'], overflow: true });
    });

    it('counts the cap in bytes, not characters', () => {
      // Four 3-byte characters: 4 characters, 12 bytes.
      expect(new LineSplitter(CAP).push(buf('€€€€\n')).overflow).toBe(true);
      expect(new LineSplitter(12).push(buf('€€€€\n'))).toEqual({ lines: ['€€€€'], overflow: false });
    });
  });
});
