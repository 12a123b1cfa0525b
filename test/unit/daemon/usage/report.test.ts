/** A report from the book's quarter-hour rows (daemon/usage/report.ts): groups, prices, the daily series. */
import { describe, expect, it } from 'vitest';
import type { SlotRow } from '../../../../daemon/usage/book.js';
import { SLOT_MS, zoneNamed, type Zone } from '../../../../daemon/usage/days.js';
import { buildReport } from '../../../../daemon/usage/report.js';

const zone = (name: string) => zoneNamed(name) as Zone;
const slot = (iso: string) => Date.parse(iso) / SLOT_MS;
const row = (iso: string, project: string, model: string, output: number): SlotRow => ({
  slot: slot(iso),
  project,
  model,
  responses: 1,
  input: 1_000,
  output,
  cache_creation: 2_000,
  cache_read: 10_000,
  cache_5m: 0,
  cache_1h: 2_000,
});
const ROWS = [
  row('2026-03-01T10:00:00Z', '-p-a', 'claude-sonnet-4-5', 100),
  row('2026-03-01T18:30:00Z', '-p-b', 'claude-opus-4-6', 200),
  row('2026-03-02T09:15:00Z', '-p-a', 'claude-sonnet-4-5', 300),
  row('2026-03-02T09:15:00Z', '-p-a', 'claude-unknown-9', 400),
];
/** Sonnet 4.5: $3 in, $15 out, 1h writes at twice the input price, reads at a tenth; Opus 4.6: $5 and $25. */
const sonnet = (output: number) => (1_000 * 3 + output * 15 + 2_000 * 6 + 10_000 * 0.3) / 1e6;
const opus = (output: number) => (1_000 * 5 + output * 25 + 2_000 * 10 + 10_000 * 0.5) / 1e6;
const now = Date.parse('2026-03-03T12:00:00Z');

describe('buildReport', () => {
  it('groups by local day, prices each model, and leaves unpriced models out of the cost', () => {
    const report = buildReport({ rows: ROWS, by: 'day', zone: zone('UTC'), fromSlot: null, toSlot: null, now });
    expect(report.rows.map((r) => [r.key, r.responses, r.output, r.models])).toEqual([
      ['2026-03-01', 2, 300, ['claude-opus-4-6', 'claude-sonnet-4-5']],
      ['2026-03-02', 2, 700, ['claude-sonnet-4-5', 'claude-unknown-9']],
    ]);
    expect(report.rows[0]?.costUsd).toBeCloseTo(sonnet(100) + opus(200), 12);
    expect(report.rows[1]).toMatchObject({ unpricedResponses: 1, totalTokens: 2 * 13_000 + 700 });
    expect(report.rows[1]?.costUsd).toBeCloseTo(sonnet(300), 12);
    expect(report.totals).toMatchObject({ responses: 4, unpricedResponses: 1, output: 1_000, cache1h: 8_000 });
    expect(report.daily.map((day) => day.day)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(report.daily[2]).toEqual({ day: '2026-03-03', costUsd: 0, totalTokens: 0 });
  });

  it("moves rows across days with the zone's midnight", () => {
    const report = buildReport({ rows: ROWS, by: 'day', zone: zone('Asia/Kolkata'), fromSlot: null, toSlot: null, now });
    expect(report.timezone).toBe('Asia/Kolkata');
    expect(report.rows.map((r) => [r.key, r.responses])).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 3],
    ]);
  });

  it('groups by project and by model, costliest first', () => {
    const projects = buildReport({ rows: ROWS, by: 'project', zone: zone('UTC'), fromSlot: null, toSlot: null, now });
    expect(projects.rows.map((r) => r.key)).toEqual(['-p-a', '-p-b']);
    const models = buildReport({ rows: ROWS, by: 'model', zone: zone('UTC'), fromSlot: null, toSlot: null, now });
    expect(models.rows.map((r) => r.key)).toEqual(['claude-sonnet-4-5', 'claude-opus-4-6', 'claude-unknown-9']);
  });

  it("runs the daily series over the window's days, and names the window", () => {
    const from = slot('2026-02-27T00:00:00Z');
    const to = slot('2026-03-02T00:00:00Z');
    const report = buildReport({ rows: ROWS.slice(0, 2), by: 'day', zone: zone('UTC'), fromSlot: from, toSlot: to, now });
    expect(report.daily.map((day) => [day.day, day.costUsd > 0])).toEqual([
      ['2026-02-27', false],
      ['2026-02-28', false],
      ['2026-03-01', true],
    ]);
    expect(report).toMatchObject({ since: '2026-02-27T00:00:00.000Z', until: '2026-03-02T00:00:00.000Z' });
    const empty = buildReport({ rows: [], by: 'model', zone: zone('UTC'), fromSlot: null, toSlot: null, now });
    expect(empty).toMatchObject({ rows: [], daily: [], totals: { responses: 0, costUsd: 0, models: [] } });
  });
});
