import { describe, expect, it } from 'vitest';
import { localDay, nextLocalMidnight } from '../../../../daemon/extraction/spend.js';

describe('the budget day', () => {
  it("is the daemon's local calendar day, and the next one starts at local midnight", () => {
    const evening = new Date(2026, 11, 31, 23, 59, 30).getTime();
    expect(localDay(evening)).toBe('2026-12-31');
    expect(nextLocalMidnight(evening)).toBe(new Date(2027, 0, 1).getTime());
    expect(localDay(nextLocalMidnight(evening))).toBe('2027-01-01');
    expect(localDay(nextLocalMidnight(evening) - 1)).toBe('2026-12-31');
  });
});
