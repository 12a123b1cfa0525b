/** Times as users give them to filters: an ISO time, or a span back from now (`7d`, `12h`, `30m`, `2w`). Pure. */
import { invalidParams } from '../protocol/errors.js';

const SPAN = /^(\d+)\s*([mhdw])$/;
const SPAN_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/**
 * Bounds are clamped to years 0000-9999, whose ISO strings have four-digit years and so compare
 * with the index's timestamps as strings (`+275760-09-13…` sorts before `2026-…`), and whose
 * Dates exist (a span of 10^12 days does not: `new Date` would throw).
 */
const FIRST_BOUND_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_BOUND_MS = Date.parse('9999-12-31T23:59:59.999Z');

const isoWithin = (ms: number) => new Date(Math.min(Math.max(ms, FIRST_BOUND_MS), LAST_BOUND_MS)).toISOString();

/** An ISO time, or a span back from now (`7d`, `12h`, `30m`, `2w`), as an ISO string with a four-digit year. */
export function timeBound(value: string, now: number, name: string): string {
  const span = SPAN.exec(value.trim());
  if (span !== null) return isoWithin(now - Number(span[1]) * (SPAN_MS[span[2] as string] as number));
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw invalidParams(`${name} must be an ISO time or a span such as 7d, 12h or 30m`, { [name]: value });
  return isoWithin(ms);
}
