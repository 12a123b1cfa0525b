/**
 * The ends of a usage report's window as people write them (`--since 30d`, `--until 2026-03-01`):
 * parsed here, where memctl can refuse a bad one before asking the daemon, and resolved against a
 * clock and a time zone by the daemon (daemon/usage/days.ts).
 */

const UNITS = { m: 'minute', h: 'hour', d: 'day', w: 'week' } as const;
export type SpanUnit = keyof typeof UNITS;

export type Bound =
  /** Back from now: whole local days for `d` and `w`, to the quarter hour for `h` and `m`. */
  | { kind: 'span'; amount: number; unit: SpanUnit }
  /** A local calendar day (`2026-03-01`, or ccusage's `20260301`). */
  | { kind: 'day'; year: number; month: number; day: number }
  /** An instant: an ISO time with a time of day (`2026-03-01T12:00:00Z`). */
  | { kind: 'instant'; ms: number };

/** No report reaches further back than this (a span past it is a typo). */
const MAX_SPAN_DAYS = 100 * 366;
const DAYS_PER_UNIT: Record<SpanUnit, number> = { m: 1 / 1440, h: 1 / 24, d: 1, w: 7 };

const SPAN = /^(\d{1,6})([mhdw])$/;
const DAY = /^(\d{4})-?(\d{2})-?(\d{2})$/;

export const BOUND_FORMATS =
  'a span back from now (30d, 2w, 12h, 90m), a day (2026-03-01 or 20260301) or an ISO time (2026-03-01T12:00:00Z)';

function validDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The bound `text` names, or null when it is none of BOUND_FORMATS. */
export function parseBound(text: string): Bound | null {
  const trimmed = text.trim();
  const span = SPAN.exec(trimmed);
  if (span) {
    const amount = Number(span[1]);
    const unit = span[2] as SpanUnit;
    if (amount < 1 || amount * DAYS_PER_UNIT[unit] > MAX_SPAN_DAYS) return null;
    return { kind: 'span', amount, unit };
  }
  const day = DAY.exec(trimmed);
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    return validDay(year, month, date) ? { kind: 'day', year, month, day: date } : null;
  }
  // A time of day is required: Date.parse reads a bare date as UTC midnight, which is not the local day people mean.
  if (!/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) return null;
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) ? { kind: 'instant', ms } : null;
}
