/** The week and month keys of daemon/usage/report.ts: ccusage's weekly view keys a week by its Monday. */
import { describe, expect, it } from 'vitest';
import { dayKey } from '../../../../daemon/usage/days.js';
import { weekOf } from '../../../../daemon/usage/report.js';

describe('weekOf', () => {
  it('gives the Monday of the week, Sunday its last day, across months and years', () => {
    const monday = (year: number, month: number, day: number) => dayKey(weekOf({ year, month, day }));
    expect(monday(2026, 3, 2)).toBe('2026-03-02');
    expect(monday(2026, 3, 1)).toBe('2026-02-23');
    expect(monday(2026, 3, 8)).toBe('2026-03-02');
    expect(monday(2026, 12, 5)).toBe('2026-11-30');
    expect(monday(2027, 1, 1)).toBe('2026-12-28');
  });
});
