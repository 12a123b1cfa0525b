/**
 * A usage report from the book's quarter-hour rows: grouped by local day, project or model, and
 * priced per model (the price is linear in tokens, so pricing a model's summed tokens gives the sum
 * of its responses' costs, as ccusage adds them, to float rounding). Pure: the service reads the
 * rows and passes the zone and window.
 */
import type { UsageDay, UsageFigures, UsageGrouping, UsageReportResult, UsageRow } from '../../shared/protocol/usage.js';
import { costOf, priceFor } from '../../shared/transcript/models.js';
import type { Usage } from '../../shared/transcript/types.js';
import type { SlotRow } from './book.js';
import { addDays, type CalendarDay, daysBetween, dayKey, SLOT_MS, slotDays, type Zone } from './days.js';

/** The daily series stops this many days back (ten years): a window reaching further is a typo's, and its days hold nothing. */
export const MAX_SERIES_DAYS = 3_660;

export interface ReportInput {
  rows: readonly SlotRow[];
  by: UsageGrouping;
  zone: Zone;
  /** The window in slots (to exclusive); null ends are unbounded. */
  fromSlot: number | null;
  toSlot: number | null;
  now: number;
}

type Counts = Usage & { responses: number };

const emptyCounts = (): Counts => ({ input: 0, output: 0, cacheCreation: 0, cacheRead: 0, cache5m: 0, cache1h: 0, responses: 0 });

function addRow(counts: Counts, row: SlotRow): void {
  counts.input += row.input;
  counts.output += row.output;
  counts.cacheCreation += row.cache_creation;
  counts.cacheRead += row.cache_read;
  counts.cache5m += row.cache_5m;
  counts.cache1h += row.cache_1h;
  counts.responses += row.responses;
}

/** Model → its counts, for one group. */
type ByModel = Map<string, Counts>;

function addTo(models: ByModel, row: SlotRow): void {
  let counts = models.get(row.model);
  if (counts === undefined) models.set(row.model, (counts = emptyCounts()));
  addRow(counts, row);
}

function add(groups: Map<string, ByModel>, key: string, row: SlotRow): void {
  let models = groups.get(key);
  if (models === undefined) groups.set(key, (models = new Map()));
  addTo(models, row);
}

/** A group's figures: its models priced one by one, summed in model order (the same sum however the rows came). */
function figuresOf(models: ByModel): UsageFigures & { models: string[] } {
  const figures: UsageFigures = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0, cache5m: 0, cache1h: 0, totalTokens: 0, costUsd: 0, responses: 0, unpricedResponses: 0 };
  const names = [...models.keys()].sort();
  for (const model of names) {
    const counts = models.get(model) as Counts;
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

/** Every day from `first` to `last`, with the cost and tokens of those that have any. */
function series(first: CalendarDay, last: CalendarDay, byDay: Map<string, ByModel>): UsageDay[] {
  const days: UsageDay[] = [];
  const count = Math.min(daysBetween(first, last) + 1, MAX_SERIES_DAYS);
  for (let at = count - 1; at >= 0; at--) {
    const day = dayKey(addDays(last, -at));
    const models = byDay.get(day);
    const figures = models === undefined ? null : figuresOf(models);
    days.push({ day, costUsd: figures?.costUsd ?? 0, totalTokens: figures?.totalTokens ?? 0 });
  }
  return days;
}

export function buildReport(input: ReportInput): Omit<UsageReportResult, 'index'> {
  const { rows, by, zone, fromSlot, toSlot, now } = input;
  const days = slotDays(
    rows.map((row) => row.slot),
    zone,
  );
  const byDay = new Map<string, ByModel>();
  const groups = new Map<string, ByModel>();
  const all: ByModel = new Map();
  rows.forEach((row, at) => {
    const day = days[at] as string;
    add(byDay, day, row);
    add(groups, by === 'day' ? day : by === 'project' ? row.project : row.model, row);
    addTo(all, row);
  });
  const result: UsageRow[] = [...groups].map(([key, models]) => ({ key, ...figuresOf(models) }));
  if (by === 'day') result.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  else result.sort((a, b) => b.costUsd - a.costUsd || b.totalTokens - a.totalTokens || (a.key < b.key ? -1 : 1));
  // The series runs over the window: from its start (or the first day with usage) to its end, or
  // to today (or the last day with usage) when the window ends later.
  const firstSlot = fromSlot ?? rows[0]?.slot ?? null;
  const end = Math.max(now, ((rows.at(-1)?.slot ?? 0) + 1) * SLOT_MS);
  const lastMs = toSlot === null ? end : Math.min(toSlot * SLOT_MS, end);
  const daily = firstSlot === null ? [] : series(zone.dateOf(firstSlot * SLOT_MS), zone.dateOf(lastMs - 1), byDay);
  return {
    by,
    timezone: zone.name,
    since: fromSlot === null ? null : new Date(fromSlot * SLOT_MS).toISOString(),
    until: toSlot === null ? null : new Date(toSlot * SLOT_MS).toISOString(),
    rows: result,
    totals: figuresOf(all),
    daily,
  };
}
