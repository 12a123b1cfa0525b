import { describe, expect, it } from 'vitest';
import { utf8PageEnd } from '../../../../shared/export/pages.js';

const TEXT = 'ascii é € 😀 naïve 日本語 '.repeat(20);

function pages(bytes: Buffer, maxBytes: number): Buffer[] {
  const out: Buffer[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = start + utf8PageEnd(bytes.subarray(start), 0, maxBytes);
    out.push(bytes.subarray(start, end));
    start = end;
  }
  return out;
}

describe('utf8PageEnd', () => {
  it('never splits a character: every page decodes alone and the pages join to the whole', () => {
    const bytes = Buffer.from(TEXT);
    for (let maxBytes = 4; maxBytes <= 64; maxBytes++) {
      const cut = pages(bytes, maxBytes);
      expect(Buffer.concat(cut).equals(bytes)).toBe(true);
      for (const page of cut) {
        expect(page.length).toBeLessThanOrEqual(maxBytes);
        expect(Buffer.from(page.toString('utf8')).equals(page)).toBe(true);
      }
    }
  });

  it('cuts where the page is full when the bytes are no UTF-8', () => {
    const bytes = Buffer.alloc(40, 0x80);
    expect(utf8PageEnd(bytes, 0, 10)).toBe(10);
    expect(utf8PageEnd(bytes, 0, 100)).toBe(40);
    // A 4-byte character right at the cut moves it back to its first byte.
    const emoji = Buffer.from('abc😀');
    expect(utf8PageEnd(emoji, 0, 5)).toBe(3);
    expect(utf8PageEnd(emoji, 0, 7)).toBe(7);
  });
});
