/**
 * Local calendar days in an IANA time zone, as ccusage's daily view counts them: which day an
 * instant falls on, when a day starts, and a report's window resolved from its bounds. Usage is
 * kept in quarter-hour slots (book.ts); every time zone's offset and DST change is a whole number
 * of quarter hours, so a slot never straddles two local days.
 */
import type { Bound } from '../../shared/usage/bounds.js';

/** The book's time grain: the largest that still divides every zone's offsets (India +5:30, Nepal +5:45). */
export const SLOT_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Day starts a zone remembers (ten years of days, twice over) before it forgets them all. */
const MAX_KNOWN_STARTS = 7_320;
/** A DST gap at midnight moves a day's start by at most this much (two hours, in slots): bounds the search. */
const MAX_GAP_SLOTS = 8;

export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

export interface Zone {
  name: string;
  /** The local day holding `ms`. */
  dateOf(ms: number): CalendarDay;
  /** The first instant of a local day. */
  startOf(day: CalendarDay): number;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

export function dayKey(day: CalendarDay): string {
  return `${pad(day.year, 4)}-${pad(day.month)}-${pad(day.day)}`;
}

/** Calendar arithmetic (no zone: a day is a day). */
export function addDays(day: CalendarDay, days: number): CalendarDay {
  const date = new Date(Date.UTC(day.year, day.month - 1, day.day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

export function sameDay(a: CalendarDay, b: CalendarDay): boolean {
  return a.year === b.year && a.month === b.month && a.day === b.day;
}

export function daysBetween(from: CalendarDay, to: CalendarDay): number {
  return Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / DAY_MS);
}

/** The zone named (the daemon's own when undefined), or null when Intl does not know the name. */
export function zoneNamed(name?: string): Zone | null {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  } catch {
    return null;
  }
  // The name asked for (ICU would say Asia/Calcutta for Asia/Kolkata), else the zone memd runs in.
  const zoneName = name ?? format.resolvedOptions().timeZone;
  const wall = (ms: number) => {
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(ms)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    return {
      year: parts.year ?? 0,
      month: parts.month ?? 0,
      day: parts.day ?? 0,
      hour: parts.hour ?? 0,
      minute: parts.minute ?? 0,
    };
  };
  /** Local wall time minus UTC at `ms`, to the minute (every zone's offset is whole minutes since 1972). */
  const offsetAt = (ms: number) => {
    const local = wall(ms);
    const floored = Math.floor(ms / MINUTE_MS) * MINUTE_MS;
    return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute) - floored;
  };
  const dateOf = (ms: number): CalendarDay => {
    const { year, month, day } = wall(ms);
    return { year, month, day };
  };
  // A day's start never changes: each is found once (a report asks for the same month again and again).
  const starts = new Map<number, number>();
  return {
    name: zoneName,
    dateOf,
    startOf(day) {
      const midnight = Date.UTC(day.year, day.month - 1, day.day);
      const known = starts.get(midnight);
      if (known !== undefined) return known;
      if (starts.size >= MAX_KNOWN_STARTS) starts.clear();
      // Midnight's offset: guessed from the offset at midnight UTC, then from the guess (a DST change between them).
      let start = midnight - offsetAt(midnight);
      start = midnight - offsetAt(start);
      // Where midnight does not exist (a DST gap at 00:00), the day starts at the end of the gap.
      for (let step = 0; step < MAX_GAP_SLOTS && !sameDay(dateOf(start), day); step++) start += SLOT_MS;
      for (let step = 0; step < MAX_GAP_SLOTS && sameDay(dateOf(start - SLOT_MS), day); step++) start -= SLOT_MS;
      starts.set(midnight, start);
      return start;
    },
  };
}

/** The first instants of `count` consecutive local days from `first`, then the end of the last (count + 1 instants). */
export function dayStarts(zone: Zone, first: CalendarDay, count: number): number[] {
  return Array.from({ length: count + 1 }, (_, at) => zone.startOf(addDays(first, at)));
}

export interface Window {
  /** Slots from (inclusive) and to (exclusive); null when unbounded. */
  fromSlot: number | null;
  toSlot: number | null;
}

const UNIT_MS = { m: MINUTE_MS, h: HOUR_MS } as const;

function boundMs(bound: Bound, edge: 'since' | 'until', now: number, zone: Zone): number {
  if (bound.kind === 'instant') return edge === 'since' ? bound.ms : bound.ms + 1;
  if (bound.kind === 'day') return zone.startOf(edge === 'since' ? bound : addDays(bound, 1));
  if (bound.unit === 'm' || bound.unit === 'h') return now - bound.amount * UNIT_MS[bound.unit];
  const days = bound.amount * (bound.unit === 'w' ? 7 : 1);
  // `since 30d` starts today and the 29 days before; `until 1d` ends where today starts (with yesterday).
  return zone.startOf(addDays(zone.dateOf(now), 1 - days));
}

/** The slots a report covers: `until` is inclusive of its day or instant, to the quarter hour. */
export function resolveWindow(since: Bound | undefined, until: Bound | undefined, now: number, zone: Zone): Window {
  return {
    fromSlot: since === undefined ? null : Math.floor(boundMs(since, 'since', now, zone) / SLOT_MS),
    toSlot: until === undefined ? null : Math.ceil(boundMs(until, 'until', now, zone) / SLOT_MS),
  };
}
