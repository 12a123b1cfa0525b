/**
 * memctl usage's picture of a report (client/memctl/views/usage-report.ts), and its arguments and
 * the check of an answer (client/memctl/usage-args.ts), which share this file's report.
 */
import { describe, expect, it } from 'vitest';
import { asUsageReport, parseUsageArgs, reportParams } from '../../../../../client/memctl/usage-args.js';
import { renderUsage, shortModel, sparkline } from '../../../../../client/memctl/views/usage-report.js';
import { USAGE_PROVENANCE, type UsageBlock, type UsageReportResult } from '../../../../../shared/protocol/usage.js';

const plain = { bold: (text: string) => text, dim: (text: string) => text };
const figures = (costUsd: number, output: number) => ({
  input: 1_234,
  output,
  cacheCreation: 5_000,
  cacheRead: 1_234_567,
  cache5m: 0,
  cache1h: 5_000,
  totalTokens: 1_234 + output + 5_000 + 1_234_567,
  costUsd,
  responses: 3,
  unpricedResponses: 0,
});
const REPORT: UsageReportResult = {
  by: 'day',
  timezone: 'Europe/Paris',
  since: '2026-02-28T23:00:00.000Z',
  until: null,
  rows: [
    { key: '2026-03-01', ...figures(1.5, 900), models: ['claude-opus-4-6'] },
    { key: '2026-03-03', ...figures(0.25, 100), models: ['claude-haiku-4-5-20251001', 'claude-opus-4-6'] },
  ],
  totals: { ...figures(1.75, 1_000), models: ['claude-haiku-4-5-20251001', 'claude-opus-4-6'] },
  daily: [
    { day: '2026-03-01', costUsd: 1.5, totalTokens: 1 },
    { day: '2026-03-02', costUsd: 0, totalTokens: 0 },
    { day: '2026-03-03', costUsd: 0.25, totalTokens: 1 },
  ],
  index: { state: 'ready', filesDone: 0, filesTotal: 0 },
  provenance: USAGE_PROVENANCE,
};

describe('parseUsageArgs', () => {
  it('defaults to the last 30 days, in the zone TZ names', () => {
    expect(parseUsageArgs([], {})).toEqual({ since: '30d', json: false });
    expect(parseUsageArgs([], { TZ: ':Europe/Paris' })).toMatchObject({ timezone: 'Europe/Paris' });
    expect(parseUsageArgs([], { TZ: 'EST5EDT,M3.2.0,M11.1.0' })).not.toHaveProperty('timezone');
    expect(parseUsageArgs(['--since', 'all', '--by', 'model', '--json'], {})).toEqual({ by: 'model', json: true });
    const args = parseUsageArgs(
      ['--since', '2026-03-01', '--until', '7d', '--project', '/home/u/app', '--timezone', 'UTC'],
      {},
    );
    expect(typeof args !== 'string' && reportParams(args)).toEqual({
      since: '2026-03-01',
      until: '7d',
      project: '/home/u/app',
      timezone: 'UTC',
    });
  });

  it('takes a device by name or id, and groups by device', () => {
    const args = parseUsageArgs(['--by', 'device', '--device', 'laptop'], {});
    expect(args).toMatchObject({ by: 'device', device: 'laptop' });
    expect(typeof args !== 'string' && reportParams(args)).toEqual({ since: '30d', by: 'device', device: 'laptop' });
    expect(parseUsageArgs(['--device'], {})).toBe('--device takes a value');
  });

  it('says what is wrong', () => {
    expect(parseUsageArgs(['--since', 'yesterday'], {})).toMatch(/^--since takes a span back from now/);
    expect(parseUsageArgs(['--until', 'all'], {})).toMatch(/^--until takes /);
    expect(parseUsageArgs(['--by', 'hour'], {})).toBe(
      '--by takes one of day, project, model, week, month, block, device',
    );
    expect(parseUsageArgs(['--by', 'block'], {})).toMatchObject({ by: 'block' });
    expect(parseUsageArgs(['--since'], {})).toBe('--since takes a value');
    expect(parseUsageArgs(['--what'], {})).toBe('unknown option --what');
    expect(parseUsageArgs(['today'], {})).toBe('usage takes no argument "today"');
  });
});

describe('rendering', () => {
  it('draws a table, totals and a sparkline of the cost per day', () => {
    const lines = renderUsage(REPORT, plain, 80);
    expect(lines).toEqual([
      'usage 2026-03-01 to 2026-03-03 (3 days), by day, days in Europe/Paris',
      'DAY         INPUT  OUTPUT  CACHE WRITE  CACHE READ  TOTAL TOKENS   COST  MODELS',
      '2026-03-01  1,234     900        5,000   1,234,567     1,241,701  $1.50  opus-4-6',
      '2026-03-03  1,234     100        5,000   1,234,567     1,240,901  $0.25  haiku-4-5, opus-4-6',
      'total       1,234   1,000        5,000   1,234,567     1,241,801  $1.75  haiku-4-5, opus-4-6',
      "tokens as Claude Code's transcripts record them (official); costs at list prices (estimated)",
      '',
      'cost per day  █·▂',
      '              highest $1.50 on 2026-03-01',
    ]);
    const building = renderUsage(
      { ...REPORT, rows: [], index: { state: 'building', filesDone: 3, filesTotal: 10 } },
      plain,
    );
    expect(building.slice(1)).toEqual([
      'partial: memd is still counting the transcripts it has read (3 of 10 files)',
      'no API responses in this window',
    ]);
  });

  it('names blocks by their UTC start, marks the gap and the active one, and gives its pace as estimated', () => {
    const block = (start: string, end: string, extra: Partial<UsageBlock> = {}): UsageBlock => ({
      start,
      end,
      lastResponse: null,
      gap: false,
      active: false,
      burnRate: null,
      projection: null,
      ...extra,
    });
    const lines = renderUsage(
      {
        ...REPORT,
        by: 'block',
        rows: [
          {
            key: '2026-03-01T08:00:00.000Z',
            ...figures(1.5, 900),
            models: ['claude-opus-4-6'],
            block: block('2026-03-01T08:00:00.000Z', '2026-03-01T13:00:00.000Z'),
          },
          {
            key: 'gap-2026-03-01T14:10:00.000Z',
            ...figures(0, 0),
            models: [],
            block: block('2026-03-01T14:10:00.000Z', '2026-03-03T09:20:00.000Z', { gap: true }),
          },
          {
            key: '2026-03-03T09:00:00.000Z',
            ...figures(0.25, 100),
            models: ['claude-opus-4-6'],
            block: block('2026-03-03T09:00:00.000Z', '2026-03-03T14:00:00.000Z', {
              active: true,
              burnRate: { tokensPerMinute: 1_500.4, tokensPerMinuteForIndicator: 12, costPerHour: 0.5 },
              projection: { totalTokens: 1_300_000, totalCost: 0.6, remainingMinutes: 42 },
            }),
          },
        ],
      },
      plain,
      80,
    );
    expect(lines.slice(1, 5).map((line) => line.split('  ')[0])).toEqual([
      'BLOCK (UTC)',
      '2026-03-01 08:00',
      '2026-03-01 14:10 - 09:20 gap',
      '2026-03-03 09:00 active',
    ]);
    expect(lines).toContain('active block until 2026-03-03 14:00 UTC');
    expect(lines).toContain('  burn rate 1,500 tokens/min, $0.50/h (estimated)');
    expect(lines).toContain('  projected at its end: 1,300,000 tokens, $0.60, 42 min left (estimated)');
  });

  it('names devices, this machine marked, and tells apart two of one name by their ids', () => {
    const lines = renderUsage(
      {
        ...REPORT,
        by: 'device',
        rows: [
          { key: 'bbbb000000000000', name: 'laptop', local: false, ...figures(1, 600), models: ['claude-opus-4-6'] },
          { key: 'aaaa000000000000', name: 'desk', local: true, ...figures(0.5, 300), models: ['claude-opus-4-6'] },
          { key: 'cccc000000000000', name: 'laptop', local: false, ...figures(0.25, 100), models: ['claude-opus-4-6'] },
        ],
      },
      plain,
      100,
    );
    expect(lines.slice(1, 5).map((line) => line.split('  ')[0])).toEqual([
      'DEVICE',
      'laptop (bbbb000000000000)',
      'desk (this machine)',
      'laptop (cccc000000000000)',
    ]);
    expect(lines[5]?.startsWith('total')).toBe(true);
  });

  it('fits a long series into the width, several days a mark', () => {
    const { line, daysPerMark } = sparkline(
      Array.from({ length: 365 }, (_, day) => day % 7),
      60,
    );
    expect(daysPerMark).toBe(7);
    expect([...line]).toHaveLength(53);
    expect(sparkline([0, 0], 10).line).toBe('··');
    expect(sparkline([1, 8], 10).line).toBe('▂█');
  });

  it('shortens model ids as ccusage does', () => {
    expect(shortModel('claude-haiku-4-5-20251001')).toBe('haiku-4-5');
    expect(shortModel('claude-opus-4-6')).toBe('opus-4-6');
    expect(shortModel('gpt-5')).toBe('gpt-5');
  });
});

describe('asUsageReport', () => {
  it('takes a report and nothing else', () => {
    expect(asUsageReport(JSON.parse(JSON.stringify(REPORT)))).toEqual(REPORT);
    expect(asUsageReport(null)).toBeNull();
    expect(asUsageReport({ ...REPORT, by: 'hour' })).toBeNull();
    expect(asUsageReport({ ...REPORT, provenance: { ...USAGE_PROVENANCE, tokens: 'guessed' } })).toBeNull();
    expect(asUsageReport({ ...REPORT, rows: [{ key: 'x' }] })).toBeNull();
    const device = { ...REPORT, by: 'device', rows: [{ ...(REPORT.rows[0] as object), name: 'desk', local: true }] };
    expect(asUsageReport(device)).toEqual(device);
    expect(asUsageReport({ ...device, rows: [{ ...device.rows[0], local: 'yes' }] })).toBeNull();
    expect(asUsageReport({ ...REPORT, totals: { ...REPORT.totals, costUsd: '1' } })).toBeNull();
  });
});
