/**
 * A usage report from the book's sums (book-reads.ts sums the quarter-hour rows in SQL, by day and
 * by project and device): grouped by local day, project, model or device, and priced per model
 * (the price is linear in tokens, so pricing a model's summed tokens gives the sum of its
 * responses' costs, as ccusage adds them, to float rounding). Pure: the service reads the sums and
 * passes the zone and window.
 */
import {
  USAGE_PROVENANCE,
  type UsageDay,
  type UsageFigures,
  type UsageGrouping,
  type UsageReportResult,
  type UsageRow,
} from '../../shared/protocol/usage.js';
import { costOf, priceFor } from '../../shared/transcript/models.js';
import { type Block, type BlockCounts, blockInfo, blockKey, ZERO_COUNTS } from './blocks.js';
import type { DayRow, GroupRow, SumsRow } from './book.js';
import { addDays, type CalendarDay, dayKey, dayStarts, daysBetween, SLOT_MS, type Zone } from './days.js';

/** The daily series stops this many days back (ten years): a window reaching further is a typo's, and its days hold nothing. */
export const MAX_SERIES_DAYS = 3_660;

export interface Series {
  days: CalendarDay[];
  /** Day i is the slots [bounds[i], bounds[i + 1]): local days, cut to the window at both ends. */
  bounds: number[];
}

/**
 * The days a report's series covers: from the window's start (or the first day with usage) to
 * its end, or to today (or the last day with usage) when the window ends later or never.
 */
export function seriesOf(
  zone: Zone,
  fromSlot: number | null,
  toSlot: number | null,
  extent: { first: number; last: number } | null,
  now: number,
): Series {
  const firstSlot = fromSlot ?? extent?.first ?? null;
  if (firstSlot === null) return { days: [], bounds: [] };
  const end = Math.max(now, ((extent?.last ?? 0) + 1) * SLOT_MS);
  const lastMs = toSlot === null ? end : Math.min(toSlot * SLOT_MS, end);
  const last = zone.dateOf(lastMs - 1);
  let first = zone.dateOf(firstSlot * SLOT_MS);
  let count = daysBetween(first, last) + 1;
  if (count <= 0) return { days: [], bounds: [] };
  if (count > MAX_SERIES_DAYS) {
    first = addDays(last, 1 - MAX_SERIES_DAYS);
    count = MAX_SERIES_DAYS;
  }
  const bounds = dayStarts(zone, first, count).map((ms) => ms / SLOT_MS);
  bounds[0] = Math.max(bounds[0] as number, fromSlot ?? Number.NEGATIVE_INFINITY);
  bounds[count] = Math.min(bounds[count] as number, toSlot ?? Number.POSITIVE_INFINITY);
  return { days: Array.from({ length: count }, (_, at) => addDays(first, at)), bounds };
}

/** The Monday of a day's week: ccusage's weekly view keys a week by it. */
export function weekOf(day: CalendarDay): CalendarDay {
  const weekday = new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();
  return addDays(day, -((weekday + DAYS_BEFORE_MONDAY) % 7));
}
/** Sunday is getUTCDay's 0: six days after Monday. */
const DAYS_BEFORE_MONDAY = 6;

const periodKey = (by: 'week' | 'month', day: CalendarDay) =>
  by === 'week' ? dayKey(weekOf(day)) : dayKey(day).slice(0, 'yyyy-mm'.length);

export interface ReportInput {
  by: UsageGrouping;
  zone: Zone;
  /** The window in slots (to exclusive); null ends are unbounded. */
  fromSlot: number | null;
  toSlot: number | null;
  series: Series;
  /**
   * The book's sums by day (indexes into series.days) and model, and by project, device and model
   * over the window (the device as reports name it: this machine's by its id).
   */
  dayRows: readonly DayRow[];
  groupRows: readonly GroupRow[];
  /** By block: the blocks of the window's responses, and now (which block is active). */
  blocks?: { blocks: readonly Block[]; now: number };
}

type Counts = BlockCounts;

/** Model → its counts, for one group. */
type ByModel = Map<string, Counts>;

function add(groups: Map<string, ByModel>, key: string, row: SumsRow): void {
  let models = groups.get(key);
  if (models === undefined) groups.set(key, (models = new Map()));
  const counts = models.get(row.model) ?? { ...ZERO_COUNTS };
  counts.input += row.input;
  counts.output += row.output;
  counts.cacheCreation += row.cache_creation;
  counts.cacheRead += row.cache_read;
  counts.cache5m += row.cache_5m;
  counts.cache1h += row.cache_1h;
  counts.responses += row.responses;
  models.set(row.model, counts);
}

/** A group's figures: its models priced one by one, summed in model order (the same sum however the rows came). */
function figuresOf(models: ByModel | undefined): UsageFigures & { models: string[] } {
  const figures: UsageFigures = {
    input: 0,
    output: 0,
    cacheCreation: 0,
    cacheRead: 0,
    cache5m: 0,
    cache1h: 0,
    totalTokens: 0,
    costUsd: 0,
    responses: 0,
    unpricedResponses: 0,
  };
  const names = [...(models?.keys() ?? [])].sort();
  for (const model of names) {
    const counts = models?.get(model) as Counts;
    figures.input += counts.input;
    figures.output += counts.output;
    figures.cacheCreation += counts.cacheCreation;
    figures.cacheRead += counts.cacheRead;
    figures.cache5m += counts.cache5m;
    figures.cache1h += counts.cache1h;
    figures.responses += counts.responses;
    const price = priceFor(model === '' ? null : model);
    if (price === null) figures.unpricedResponses += counts.responses;
    else figures.costUsd += costOf(counts, price);
  }
  figures.totalTokens = figures.input + figures.output + figures.cacheCreation + figures.cacheRead;
  // An entry without a model counts its tokens under '' (as ccusage does), but names no model.
  return { ...figures, models: names.filter((name) => name !== '') };
}

export function buildReport(input: ReportInput): Omit<UsageReportResult, 'index'> {
  const { by, zone, fromSlot, toSlot, series } = input;
  const keys = series.days.map(dayKey);
  const byDay = new Map<string, ByModel>();
  for (const row of input.dayRows) add(byDay, keys[row.day] as string, row);
  const groups = new Map<string, ByModel>();
  const all = new Map<string, ByModel>();
  for (const row of input.groupRows) {
    const group = by === 'project' ? row.project : by === 'model' ? row.model : by === 'device' ? row.device : null;
    if (group !== null) add(groups, group, row);
    add(all, '', row);
  }
  const periods = new Map<string, ByModel>();
  if (by === 'week' || by === 'month')
    input.dayRows.forEach((row) => {
      add(periods, periodKey(by, series.days[row.day] as CalendarDay), row);
    });
  let rows: UsageRow[];
  if (by === 'block') rows = blockRows(input.blocks?.blocks ?? [], input.blocks?.now ?? 0);
  else {
    const source = by === 'day' ? byDay : by === 'week' || by === 'month' ? periods : groups;
    rows = [...source].map(([key, models]) => ({ key, ...figuresOf(models) }));
  }
  if (by === 'day' || by === 'week' || by === 'month')
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  else if (by === 'project' || by === 'model' || by === 'device')
    rows.sort((a, b) => b.costUsd - a.costUsd || b.totalTokens - a.totalTokens || (a.key < b.key ? -1 : 1));
  const daily: UsageDay[] = keys.map((day) => {
    const { costUsd, totalTokens } = figuresOf(byDay.get(day));
    return { day, costUsd, totalTokens };
  });
  return {
    by,
    timezone: zone.name,
    since: fromSlot === null ? null : new Date(fromSlot * SLOT_MS).toISOString(),
    until: toSlot === null ? null : new Date(toSlot * SLOT_MS).toISOString(),
    rows,
    // By block, the blocks are whole (one that starts before the window's end runs past it): the totals are theirs.
    totals: by === 'block' ? blockTotals(input.blocks?.blocks ?? []) : figuresOf(all.get('')),
    daily,
    provenance: USAGE_PROVENANCE,
  };
}

/** One row per block, gaps included, oldest first: each priced like any group, with its times and pace. */
function blockRows(blocks: readonly Block[], now: number): UsageRow[] {
  return blocks.map((block) => {
    const figures = figuresOf(block.models);
    return { key: blockKey(block), ...figures, block: blockInfo(block, figures, now) };
  });
}

/** The blocks' sums, priced per model as every group is. */
function blockTotals(blocks: readonly Block[]): UsageFigures & { models: string[] } {
  const models: ByModel = new Map();
  for (const block of blocks)
    for (const [model, counts] of block.models) {
      const sum = models.get(model) ?? { ...ZERO_COUNTS };
      for (const field of Object.keys(ZERO_COUNTS) as (keyof Counts)[]) sum[field] += counts[field];
      models.set(model, sum);
    }
  return figuresOf(models);
}
