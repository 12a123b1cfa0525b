import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, START, type WalkPosition } from '../../../../daemon/search/walk.js';

describe('search walk cursors', () => {
  it('gives back the position it was made from', () => {
    const positions: WalkPosition[] = [
      {
        batch: [
          [96_008, 112_007],
          [32_008, 47_992],
        ],
        offset: 762,
        rest: [47_993, 96_007],
        now: 1_796_460_973_853,
      },
      { batch: [[88_008, 96_007]], offset: 0, rest: null, now: 1 },
    ];
    for (const position of positions) expect(decodeCursor(encodeCursor(position))).toEqual(position);
    expect(decodeCursor(undefined)).toEqual(START);
  });

  it('reads the offset cursors of earlier memd as an offset into the first batch', () => {
    expect(decodeCursor('o40')).toEqual({ batch: null, offset: 40, rest: null, now: null });
  });

  it('refuses any other text as InvalidParams', () => {
    for (const cursor of ['nope', 'w1:5-3::7', 'w1:1-2', 'w1:1-2,3-4,5-6::7', 'w99999999:1-2::7', 'o', 'w1:1-2::']) {
      let thrown: unknown;
      try {
        decodeCursor(cursor);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, cursor).toMatchObject({ code: -32602, message: 'cursor is not one this daemon gave' });
    }
  });
});
