/**
 * Which transcript timestamps memd does date arithmetic with (issue 27, item 10). Transcripts are
 * written by other programs, and one line timestamped `+275760-09-13T00:00:00.000Z` (the last
 * instant JavaScript represents) once made every usage report fail. A timestamp is good when it is
 * an RFC 3339 date-time (`2026-03-02T10:00:00.000Z`, `2026-03-02T12:00:00+02:00`: a four-digit
 * year, a day the month has, no leap second, seconds required) at an instant from EARLIEST_MS to
 * FUTURE_SLACK_MS past now. A good one is kept in its canonical form (`toISOString()`, UTC, with
 * milliseconds), so that stored timestamps compare as strings in the order of time; anything else
 * is a bad value: null in the index, counted, and out of every day, block, bound and ordering.
 */

/**
 * Nothing a coding agent wrote is older (Claude Code's transcripts date from 2025); a timestamp
 * before this is a zeroed clock or an epoch mistaken for another unit.
 */
export const EARLIEST_MS = Date.UTC(2000, 0, 1);
/** How far past now a timestamp may be: another machine's clock a few hours ahead, or time zones read wrong. */
export const FUTURE_SLACK_MS = 86_400_000;

/** Entry types that Claude Code always timestamps: one of these without a timestamp is a bad value too. */
const TIMED_TYPES = new Set(['user', 'assistant', 'system', 'attachment']);

/** RFC 3339's date-time (its `T` and `Z` may be lower case), with a four-digit year. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The canonical form's length (`2026-01-05T10:28:29.607Z`): years 1000-9999 only. */
const CANONICAL_LENGTH = 24;

/** Whether year-month-day is a day of the calendar (Date.parse takes 2026-02-30 for March 2). */
function realDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant of a good timestamp in epoch ms, or null. */
export function timestampMs(value: unknown, now: number = Date.now()): number | null {
  if (typeof value !== 'string') return null;
  const match = DATE_TIME.exec(value);
  if (match === null) return null;
  const [, year, month, day, hour, minute, second, , zone] = match as unknown as string[];
  if (!realDay(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  if (zone !== undefined && zone.length > 1 && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59)) return null;
  const ms = Date.parse(value.toUpperCase());
  if (!Number.isFinite(ms) || ms < EARLIEST_MS || ms > now + FUTURE_SLACK_MS) return null;
  return ms;
}

/** A good timestamp in its canonical form, or null for a bad one. */
export function normalTimestamp(value: unknown, now: number = Date.now()): string | null {
  // The common case, already canonical: checked without building a Date's string again.
  const ms = timestampMs(value, now);
  if (ms === null) return null;
  if (typeof value === 'string' && value.length === CANONICAL_LENGTH && value[23] === 'Z' && value[19] === '.' && value[10] === 'T') return value;
  return new Date(ms).toISOString();
}

/** Whether an entry's timestamp is a bad value: present but not good, or missing where Claude Code always writes one. */
export function isBadTimestamp(type: string, value: unknown, normal: string | null): boolean {
  if (normal !== null) return false;
  return value !== undefined || TIMED_TYPES.has(type);
}
