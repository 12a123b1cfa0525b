/** Local days in IANA zones: the day of an instant, a day's start across DST, windows (daemon/usage/days.ts). */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dayKey,
  dayStarts,
  resolveWindow,
  SLOT_MS,
  type Zone,
  zoneNamed,
} from '../../../../daemon/usage/days.js';
import { parseBound } from '../../../../shared/usage/bounds.js';

function zone(name: string): Zone {
  const found = zoneNamed(name);
  if (found === null) throw new Error(`no zone ${name}`);
  return found;
}

const at = (iso: string) => Date.parse(iso);

describe('zones', () => {
  it('names the day an instant falls on, east and west of UTC and at odd offsets', () => {
    expect(dayKey(zone('UTC').dateOf(at('2026-03-01T23:59:59.999Z')))).toBe('2026-03-01');
    expect(dayKey(zone('Asia/Kolkata').dateOf(at('2026-03-01T18:30:00Z')))).toBe('2026-03-02');
    expect(dayKey(zone('Asia/Kolkata').dateOf(at('2026-03-01T18:29:59Z')))).toBe('2026-03-01');
    expect(dayKey(zone('Asia/Kathmandu').dateOf(at('2026-03-01T18:15:00Z')))).toBe('2026-03-02');
    expect(dayKey(zone('America/New_York').dateOf(at('2026-03-02T04:59:59Z')))).toBe('2026-03-01');
  });

  it("finds a day's first instant, on DST days and where midnight does not exist", () => {
    expect(zone('UTC').startOf({ year: 2026, month: 3, day: 2 })).toBe(at('2026-03-02T00:00:00Z'));
    expect(zone('Asia/Kolkata').startOf({ year: 2026, month: 3, day: 2 })).toBe(at('2026-03-01T18:30:00Z'));
    // New York springs forward on 2026-03-08 at 02:00: that day starts at EST midnight, the next at EDT midnight.
    expect(zone('America/New_York').startOf({ year: 2026, month: 3, day: 8 })).toBe(at('2026-03-08T05:00:00Z'));
    expect(zone('America/New_York').startOf({ year: 2026, month: 3, day: 9 })).toBe(at('2026-03-09T04:00:00Z'));
    // Santiago springs forward at midnight (2024-09-08): the day starts at 01:00, an hour after the previous one ended.
    const santiago = zone('America/Santiago');
    const start = santiago.startOf({ year: 2024, month: 9, day: 8 });
    expect(dayKey(santiago.dateOf(start))).toBe('2024-09-08');
    expect(dayKey(santiago.dateOf(start - 1))).toBe('2024-09-07');
  });

  it('is null for a name Intl does not know', () => {
    expect(zoneNamed('Mars/Olympus_Mons')).toBeNull();
    expect(zoneNamed()?.name).toBeTruthy();
  });
});

describe('dayStarts', () => {
  it('gives consecutive local days, 23 or 25 hours long across DST changes', () => {
    const starts = dayStarts(zone('America/New_York'), { year: 2026, month: 3, day: 7 }, 3);
    expect(starts.map((ms) => new Date(ms).toISOString())).toEqual([
      '2026-03-07T05:00:00.000Z',
      '2026-03-08T05:00:00.000Z',
      '2026-03-09T04:00:00.000Z',
      '2026-03-10T04:00:00.000Z',
    ]);
    expect(
      dayStarts(zone('Asia/Kathmandu'), { year: 2026, month: 3, day: 1 }, 1).map((ms) => new Date(ms).toISOString()),
    ).toEqual(['2026-02-28T18:15:00.000Z', '2026-03-01T18:15:00.000Z']);
    for (const ms of dayStarts(zone('America/Santiago'), { year: 2024, month: 9, day: 6 }, 4))
      expect(ms % SLOT_MS).toBe(0);
  });
});

describe('resolveWindow', () => {
  const now = at('2026-03-10T15:20:00Z');
  const bound = (text: string) => parseBound(text) ?? undefined;

  it('counts day spans in whole local days, today included', () => {
    const window = resolveWindow(bound('7d'), undefined, now, zone('UTC'));
    expect(window).toEqual({ fromSlot: at('2026-03-04T00:00:00Z') / SLOT_MS, toSlot: null });
    expect(resolveWindow(bound('1w'), bound('1d'), now, zone('Asia/Kolkata'))).toEqual({
      fromSlot: at('2026-03-03T18:30:00Z') / SLOT_MS,
      toSlot: at('2026-03-09T18:30:00Z') / SLOT_MS,
    });
  });

  it('takes days inclusive, hours to the quarter hour, instants as given', () => {
    expect(resolveWindow(bound('2026-03-01'), bound('2026-03-02'), now, zone('UTC'))).toEqual({
      fromSlot: at('2026-03-01T00:00:00Z') / SLOT_MS,
      toSlot: at('2026-03-03T00:00:00Z') / SLOT_MS,
    });
    expect(resolveWindow(bound('2h'), undefined, now, zone('UTC')).fromSlot).toBe(at('2026-03-10T13:15:00Z') / SLOT_MS);
    expect(resolveWindow(undefined, bound('2026-03-05T10:05:00Z'), now, zone('UTC')).toSlot).toBe(
      at('2026-03-05T10:15:00Z') / SLOT_MS,
    );
  });

  it('adds calendar days across month and year ends', () => {
    expect(addDays({ year: 2026, month: 12, day: 31 }, 1)).toEqual({ year: 2027, month: 1, day: 1 });
    expect(addDays({ year: 2024, month: 3, day: 1 }, -1)).toEqual({ year: 2024, month: 2, day: 29 });
  });
});
