/**
 * usage.report from a real SQLite book (daemon/usage/service.ts, report.ts): days in a zone, groups,
 * prices and unpriced models, the daily series and the window it names, and the params it refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import type { ResponseEntry } from '../../../../daemon/usage/rank.js';
import { createUsageService, type UsageService } from '../../../../daemon/usage/service.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

const NOW = Date.parse('2026-03-03T12:00:00Z');
const THIS_DEVICE = { id: 'a1b2c3d4e5f60718', name: 'desk' };
const usage = (output: number) => ({
  input: 1_000,
  output,
  cacheCreation: 2_000,
  cacheRead: 10_000,
  cache5m: 0,
  cache1h: 2_000,
});
/** Sonnet 4.5: $3 in, $15 out, 1h writes at twice the input price, reads at a tenth; Opus 4.6: $5 and $25. */
const sonnet = (output: number) => (1_000 * 3 + output * 15 + 2_000 * 6 + 10_000 * 0.3) / 1e6;
const opus = (output: number) => (1_000 * 5 + output * 25 + 2_000 * 10 + 10_000 * 0.5) / 1e6;

let dir: string;
let store: Store;
let usageService: UsageService;

function response(timestamp: string, model: string, output: number, n: number): ResponseEntry {
  return {
    offset: n * 100,
    type: 'assistant',
    timestamp,
    messageId: `msg_${n}`,
    requestId: `req_${n}`,
    model,
    usage: usage(output),
    isSidechain: false,
  };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memd-usage-service-'));
  store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  usageService = createUsageService({ db: store.db, log: fakeLogger(), clock: () => NOW, device: THIS_DEVICE });
  const insertFile = store.db.prepare(
    "INSERT INTO files (id, path, project, session_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen) VALUES (?, ?, ?, ?, 0, '1', ?, 0, 0, '', 1000, 0, 0, 0, 0, 0, 0, 0)",
  );
  const insertEntry =
    store.db.prepare(`INSERT INTO entries (file_id, offset, length, type, timestamp, message_id, request_id, model, usage_input, usage_output, usage_cache_creation, usage_cache_read, usage_cache_5m, usage_cache_1h,
    chars, est_tokens, is_sidechain, is_meta, is_compact_summary) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0)`);
  const files = [
    {
      id: 1,
      path: '/p/-p-a/s1.jsonl',
      project: '-p-a',
      entries: [
        response('2026-03-01T10:00:00Z', 'claude-sonnet-4-5', 100, 1),
        response('2026-03-02T09:15:00Z', 'claude-sonnet-4-5', 300, 3),
        response('2026-03-02T09:20:00Z', 'claude-unknown-9', 400, 4),
      ],
    },
    {
      id: 2,
      path: '/p/-p-b/s2.jsonl',
      project: '-p-b',
      entries: [response('2026-03-01T18:30:00Z', 'claude-opus-4-6', 200, 2)],
    },
  ];
  for (const file of files) {
    insertFile.run(file.id, file.path, file.project, `s${file.id}`, String(file.id));
    for (const { offset, type, timestamp, messageId, requestId, model, usage: u } of file.entries) {
      insertEntry.run(
        file.id,
        offset,
        type,
        timestamp,
        messageId,
        requestId,
        model,
        u?.input,
        u?.output,
        u?.cacheCreation,
        u?.cacheRead,
        u?.cache5m,
        u?.cache1h,
      );
    }
  }
  usageService.start();
  await usageService.caughtUp();
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('usage.report', () => {
  it('groups by local day, prices each model, and leaves unpriced models out of the cost', async () => {
    const report = await usageService.report({ timezone: 'UTC' });
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
    expect(report).toMatchObject({ since: null, until: null, index: { state: 'ready' } });
  });

  it("moves responses across days with the zone's midnight", async () => {
    const report = await usageService.report({ timezone: 'Asia/Kolkata' });
    expect(report.timezone).toBe('Asia/Kolkata');
    expect(report.rows.map((r) => [r.key, r.responses])).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 3],
    ]);
  });

  it('groups by project and by model, costliest first, and keeps to a project given by folder or cwd', async () => {
    expect((await usageService.report({ by: 'project' })).rows.map((r) => r.key)).toEqual(['-p-a', '-p-b']);
    expect((await usageService.report({ by: 'model' })).rows.map((r) => r.key)).toEqual([
      'claude-sonnet-4-5',
      'claude-opus-4-6',
      'claude-unknown-9',
    ]);
    expect((await usageService.report({ project: '-p-b', timezone: 'UTC' })).totals).toMatchObject({
      responses: 1,
      output: 200,
    });
    expect((await usageService.report({ project: '/p/b', timezone: 'UTC' })).totals).toMatchObject({
      responses: 1,
      output: 200,
    });
  });

  it("runs the daily series over the window's days, cut to the window, and names the window", async () => {
    const report = await usageService.report({ since: '2026-02-27', until: '2026-03-01T12:00:00Z', timezone: 'UTC' });
    expect(report.daily.map((day) => [day.day, day.costUsd > 0])).toEqual([
      ['2026-02-27', false],
      ['2026-02-28', false],
      ['2026-03-01', true],
    ]);
    // Until noon: the 18:30 response is out.
    expect(report.totals.responses).toBe(1);
    expect(report).toMatchObject({ since: '2026-02-27T00:00:00.000Z', until: '2026-03-01T12:15:00.000Z' });
    expect((await usageService.report({ since: '2d', timezone: 'UTC' })).daily.map((day) => day.day)).toEqual([
      '2026-03-02',
      '2026-03-03',
    ]);
    expect(await usageService.report({ project: '-p-none' })).toMatchObject({
      rows: [],
      daily: [],
      totals: { responses: 0, costUsd: 0, models: [] },
    });
  });

  it('reads the responses of a report by block a page at a time, yielding between pages, and stops when aborted', async () => {
    // A page of one response and no time budget: a turn of the event loop before every page (the
    // 09:15 slot holds two responses, read whole).
    const paged = createUsageService({
      db: store.db,
      log: fakeLogger(),
      clock: () => NOW,
      device: THIS_DEVICE,
      sliceRows: 1,
      sliceMs: 0,
    });
    const whole = await usageService.report({ by: 'block' });
    const turns: string[] = [];
    setImmediate(() => turns.push('turn'));
    const report = paged.report({ by: 'block' }).then((result) => {
      turns.push('report');
      return result;
    });
    // The same report (the paged service's own book is not started: its index state differs).
    expect(await report).toEqual({ ...whole, index: expect.anything() });
    expect(turns).toEqual(['turn', 'report']);
    expect(whole.rows.map((row) => [row.key, row.responses])).toEqual([
      ['2026-03-01T10:00:00.000Z', 1],
      ['gap-2026-03-01T15:00:00.000Z', 0],
      ['2026-03-01T18:00:00.000Z', 1],
      ['gap-2026-03-01T23:30:00.000Z', 0],
      ['2026-03-02T09:00:00.000Z', 2],
    ]);

    const controller = new AbortController();
    setImmediate(() => controller.abort(new Error('cancelled')));
    await expect(paged.report({ by: 'block' }, controller.signal)).rejects.toThrow('cancelled');
  });

  it('refuses a bound or a zone it cannot read, naming the field', async () => {
    await expect(usageService.report({ since: 'yesterday' })).rejects.toThrow(
      expect.objectContaining({ code: -32602, data: expect.objectContaining({ field: 'since' }) }),
    );
    await expect(usageService.report({ until: '2026-02-30' })).rejects.toThrow(
      expect.objectContaining({ data: expect.objectContaining({ field: 'until' }) }),
    );
    await expect(usageService.report({ timezone: 'Mars/Olympus_Mons' })).rejects.toThrow(
      expect.objectContaining({ data: expect.objectContaining({ field: 'timezone' }) }),
    );
  });
});
