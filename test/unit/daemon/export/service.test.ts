import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../../daemon/export/cursor.js';
import { cutPage } from '../../../../daemon/export/service.js';
import { MAX_FRAME_BYTES } from '../../../../shared/protocol/framing.js';

describe('cutPage', () => {
  it('gives text pages on character boundaries', () => {
    const page = cutPage(Buffer.from('ab€cd'), 4);
    expect(page).toEqual({ length: 2, encoding: 'utf8', content: 'ab' });
  });

  it('gives bytes that are no UTF-8 as base64, unchanged', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const page = cutPage(bytes, 100);
    expect(page.encoding).toBe('base64');
    expect(Buffer.from(page.content, 'base64').equals(bytes)).toBe(true);
  });

  it('halves a page whose escaped JSON would not fit in the frame', () => {
    // Control characters escape to six bytes each: 8 MiB of them would be a 48 MiB frame.
    const page = cutPage(Buffer.alloc(8 * 1024 * 1024, 0x01), 8 * 1024 * 1024);
    expect(page.encoding).toBe('utf8');
    expect(page.length).toBeLessThan(8 * 1024 * 1024);
    expect(Buffer.byteLength(JSON.stringify(page.content))).toBeLessThan(MAX_FRAME_BYTES);
  });
});

describe('export cursors', () => {
  const cursor = { sessionId: 's-1', format: 'md' as const, offset: 10, totalBytes: 20, version: 'v', documentId: 'd' };

  it('come back as they were given', () => {
    expect(decodeCursor(encodeCursor(cursor), 's-1', 'md')).toEqual(cursor);
  });

  it('are refused for another session or format, or when made up', () => {
    const kinds = [
      () => decodeCursor(encodeCursor(cursor), 's-2', 'md'),
      () => decodeCursor(encodeCursor(cursor), 's-1', 'html'),
      () => decodeCursor('x1.bm90IGpzb24', 's-1', 'md'),
      () => decodeCursor('garbage', 's-1', 'md'),
      () => decodeCursor(encodeCursor({ ...cursor, offset: 30 }), 's-1', 'md'),
    ];
    for (const decode of kinds) expect(decode).toThrow(expect.objectContaining({ code: -32602, kind: 'BadCursor' }));
  });
});
