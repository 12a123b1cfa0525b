import { describe, expect, it } from 'vitest';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import {
  EARLIEST_MS,
  FUTURE_SLACK_MS,
  isBadTimestamp,
  normalTimestamp,
  timestampMs,
} from '../../../../shared/transcript/timestamp.js';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

describe('transcript timestamps', () => {
  it('keeps canonical timestamps as they are', () => {
    expect(normalTimestamp('2026-01-05T10:28:29.607Z', NOW)).toBe('2026-01-05T10:28:29.607Z');
    expect(timestampMs('2026-01-05T10:28:29.607Z', NOW)).toBe(Date.parse('2026-01-05T10:28:29.607Z'));
  });

  it('puts other RFC 3339 forms in canonical form (UTC, milliseconds)', () => {
    expect(normalTimestamp('2026-03-02T12:00:00+02:00', NOW)).toBe('2026-03-02T10:00:00.000Z');
    expect(normalTimestamp('2026-03-02T11:00:00Z', NOW)).toBe('2026-03-02T11:00:00.000Z');
    expect(normalTimestamp('2026-03-02t11:00:00.123456z', NOW)).toBe('2026-03-02T11:00:00.123Z');
    expect(normalTimestamp('2026-03-02T01:00:00-05:30', NOW)).toBe('2026-03-02T06:30:00.000Z');
  });

  it.each([
    ['the end of JavaScript time', '+275760-09-13T00:00:00.000Z'],
    ['the start of JavaScript time', '-271821-04-20T00:00:00.000Z'],
    ['a six-digit year', '+002026-03-02T10:00:00.000Z'],
    ['year 0', '0000-01-01T00:00:00.000Z'],
    ['before 2000', '1999-12-31T23:59:59.999Z'],
    ['far in the future', '2999-01-01T00:00:00.000Z'],
    ['more than a day ahead', new Date(NOW + FUTURE_SLACK_MS + 1).toISOString()],
    ['a day the month lacks', '2026-02-30T10:00:00.000Z'],
    ['February 29 of a common year', '2027-02-29T10:00:00.000Z'],
    ['month 13', '2026-13-01T10:00:00.000Z'],
    ['a leap second', '2026-03-02T23:59:60.000Z'],
    ['hour 24', '2026-03-02T24:00:00.000Z'],
    ['an offset of 24 hours', '2026-03-02T10:00:00+24:00'],
    ['no seconds', '2026-03-02T10:00Z'],
    ['no zone', '2026-03-02T10:00:00.000'],
    ['a date alone', '2026-03-02'],
    ['prose', 'March 2, 2026 10:00'],
    ['a space for the T', '2026-03-02 10:00:00Z'],
    ['garbage', 'not a date'],
    ['empty', ''],
    ['a number', 1_772_445_600_000],
    ['NaN', Number.NaN],
    ['an object', { at: 1 }],
    ['an array', ['2026-03-02T10:00:00.000Z']],
    ['null', null],
    ['true', true],
  ])('refuses %s', (_, value) => {
    expect(normalTimestamp(value, NOW)).toBeNull();
    expect(timestampMs(value, NOW)).toBeNull();
  });

  it('takes the edges of the window', () => {
    expect(normalTimestamp(new Date(EARLIEST_MS).toISOString(), NOW)).toBe('2000-01-01T00:00:00.000Z');
    expect(normalTimestamp(new Date(EARLIEST_MS - 1).toISOString(), NOW)).toBeNull();
    expect(normalTimestamp(new Date(NOW + FUTURE_SLACK_MS).toISOString(), NOW)).not.toBeNull();
    expect(normalTimestamp('2028-02-29T00:00:00.000Z', Date.parse('2028-03-01T00:00:00.000Z'))).toBe(
      '2028-02-29T00:00:00.000Z',
    );
  });

  it('counts a missing timestamp as bad only on entries Claude Code always timestamps', () => {
    expect(isBadTimestamp('assistant', undefined, null)).toBe(true);
    expect(isBadTimestamp('user', undefined, null)).toBe(true);
    expect(isBadTimestamp('file-history-snapshot', undefined, null)).toBe(false);
    expect(isBadTimestamp('ai-title', undefined, null)).toBe(false);
    expect(isBadTimestamp('summary', 'garbage', null)).toBe(true);
    expect(isBadTimestamp('user', '2026-03-02T10:00:00.000Z', '2026-03-02T10:00:00.000Z')).toBe(false);
  });

  it('is applied where entries are parsed: the index holds a good timestamp or null', () => {
    const entry = (timestamp: unknown) =>
      parseEntry(
        { type: 'user', message: { role: 'user', content: 'hi' }, ...(timestamp === undefined ? {} : { timestamp }) },
        0,
        10,
      );
    expect(entry('+275760-09-13T00:00:00.000Z')).toMatchObject({ timestamp: null, badTimestamp: true });
    expect(entry(undefined)).toMatchObject({ timestamp: null, badTimestamp: true });
    expect(entry('2026-03-02T12:00:00+02:00')).toMatchObject({ timestamp: '2026-03-02T10:00:00.000Z' });
    expect(entry('2026-03-02T10:00:00.000Z')).not.toHaveProperty('badTimestamp');
  });
});
