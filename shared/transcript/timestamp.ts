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

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether year-month-day is a day of the calendar (Date.parse takes 2026-02-30 for March 2). */
function realDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number));
}

/** The instant of a good timestamp in epoch ms, or null. */
export function timestampMs(value: unknown, now: number = Date.now()): number | null {
  if (typeof value !== 'string') return null;
  const match = DATE_TIME.exec(value);
  if (match === null) return null;
  const [, year, month, day, hour, minute, second, , zone] = match as unknown as string[];
  if (!realDay(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  if (zone !== undefined && zone.length > 1 && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59))
    return null;
  const ms = Date.parse(value.toUpperCase());
  if (!Number.isFinite(ms) || ms < EARLIEST_MS || ms > now + FUTURE_SLACK_MS) return null;
  return ms;
}

/** Positions of the digits in the canonical form `YYYY-MM-DDTHH:MM:SS.mmmZ`, and of its separators. */
const CANONICAL_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];
const CANONICAL_SEPARATORS: readonly [number, string][] = [
  [4, '-'],
  [7, '-'],
  [10, 'T'],
  [13, ':'],
  [16, ':'],
  [19, '.'],
  [23, 'Z'],
];
const EARLIEST_ISO = new Date(EARLIEST_MS).toISOString();

/** The number written at `from`, `length` digits long (the digits are checked already). */
const digits = (text: string, from: number, length: number) => {
  let value = 0;
  for (let at = from; at < from + length; at++) value = value * 10 + text.charCodeAt(at) - 48;
  return value;
};

/**
 * Whether a string in the canonical shape is good, without a Date: ingest checks every line, and
 * the regular expression with Date.parse cost 1.0 µs an entry (seconds of a heavy user's
 * backfill); this costs 0.26 µs (a million canonical timestamps, measured). Canonical strings
 * compare as the instants do. Null when the string is not in the canonical shape.
 */
function goodCanonical(text: string, now: number): boolean | null {
  if (text.length !== CANONICAL_LENGTH) return null;
  for (const [at, char] of CANONICAL_SEPARATORS) if (text[at] !== char) return null;
  for (const at of CANONICAL_DIGITS) {
    const code = text.charCodeAt(at);
    if (code < 48 || code > 57) return null;
  }
  const year = digits(text, 0, 4);
  if (!realDay(year, digits(text, 5, 2), digits(text, 8, 2))) return false;
  if (digits(text, 11, 2) > 23 || digits(text, 14, 2) > 59 || digits(text, 17, 2) > 59) return false;
  return text >= EARLIEST_ISO && text <= latestIso(now);
}

/** The latest good timestamp at `now`, canonical; remembered for the last `now` asked (a pass reads many lines in one millisecond). */
let latest = { now: Number.NaN, iso: '' };
function latestIso(now: number): string {
  if (latest.now !== now) latest = { now, iso: new Date(now + FUTURE_SLACK_MS).toISOString() };
  return latest.iso;
}

/** A good timestamp in its canonical form, or null for a bad one. */
export function normalTimestamp(value: unknown, now: number = Date.now()): string | null {
  if (typeof value !== 'string') return null;
  const canonical = goodCanonical(value, now);
  if (canonical !== null) return canonical ? value : null;
  const ms = timestampMs(value, now);
  return ms === null ? null : new Date(ms).toISOString();
}

/** Whether an entry's timestamp is a bad value: present but not good, or missing where Claude Code always writes one. */
export function isBadTimestamp(type: string, value: unknown, normal: string | null): boolean {
  if (normal !== null) return false;
  return value !== undefined || TIMED_TYPES.has(type);
}
