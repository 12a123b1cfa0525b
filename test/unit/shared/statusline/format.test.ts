import { describe, expect, it } from 'vitest';
import {
  compactAge,
  compactDuration,
  compactTokens,
  formatStatusLine,
  modelName,
  percentText,
  type StatusFacts,
  statusBar,
} from '../../../../shared/statusline/format.js';
import { computeThresholds } from '../../../../shared/transcript/thresholds.js';

const NOW = Date.parse('2026-12-04T12:00:00Z');
/**
 * Threshold mode: a 200K auto-compact window set (CLAUDE_CODE_AUTO_COMPACT_WINDOW), so Sonnet 4.5
 * compacts ahead at 167K and the line reads "used of auto-compact"; without it Claude Code 2.1.197
 * compacts Sonnet 4.5 only when the API refuses (reactive mode, its own test below).
 */
const threshold = (tokens: number, env: Record<string, string> = {}) =>
  computeThresholds({ model: 'claude-sonnet-4-5', tokens, env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000', ...env } });
const reactive = (tokens: number, model = 'claude-sonnet-4-5') => computeThresholds({ model, tokens, env: {} });

function facts(overrides: Partial<StatusFacts> = {}): StatusFacts {
  return {
    threshold: threshold(40_000),
    compactions: 2,
    memoryAt: NOW - 3 * 60_000,
    costUsd: 1.234,
    note: null,
    ...overrides,
  };
}

const plain = (value: StatusFacts, columns = 200) => formatStatusLine(value, { color: false, columns, now: NOW });

describe('the status line', () => {
  it('warns of sessions Claude Code deleted that memd did not hold, the first segment to go (issue 31)', () => {
    const line = plain(facts({ deletedNotHeld: 3 }));
    expect(line).toBe(
      '▕██░░░░░░▏ 24% used of auto-compact · 127K left · 2 compactions · mem 3m · $1.23 · 3 deleted, not kept',
    );
    expect(plain(facts({ deletedNotHeld: 3 }), [...line].length - 1)).toBe(plain(facts()));
    expect(plain(facts({ deletedNotHeld: 0 }))).toBe(plain(facts()));
    expect(formatStatusLine(facts({ deletedNotHeld: 1 }), { color: true, columns: 200, now: NOW })).toContain(
      '\x1b[33m1 deleted, not kept\x1b[0m',
    );
  });

  it("says what the last compaction kept of the session's facts, yellow when it lost some (issue 32)", () => {
    expect(plain(facts({ lastKept: { kept: 41, total: 43 } }))).toBe(
      '▕██░░░░░░▏ 24% used of auto-compact · 127K left · 2 compactions · last compaction kept 41/43 · mem 3m · $1.23',
    );
    expect(
      formatStatusLine(facts({ lastKept: { kept: 41, total: 43 } }), { color: true, columns: 200, now: NOW }),
    ).toContain('\x1b[33mlast compaction kept 41/43\x1b[0m');
    expect(plain(facts({ lastKept: { kept: 5, total: 5 } }))).toContain('last compaction kept 5/5');
  });

  it('shows the share of auto-compact used (as the bar draws it), tokens left, compactions, memory age and cost', () => {
    // Sonnet 4.5: 200K window, 20K output reserve, auto-compact at 167K; 40K used is 24 %.
    expect(plain(facts())).toBe('▕██░░░░░░▏ 24% used of auto-compact · 127K left · 2 compactions · mem 3m · $1.23');
  });

  it('says one compaction, a memory never extracted, and a note where figures fall short', () => {
    expect(plain(facts({ compactions: 1, memoryAt: null, note: 'no memd' }))).toBe(
      '▕██░░░░░░▏ 24% used of auto-compact · 127K left · 1 compaction · mem - · $1.23 · no memd',
    );
    expect(plain(facts({ compactions: null, memoryAt: undefined, costUsd: null }))).toBe(
      '▕██░░░░░░▏ 24% used of auto-compact · 127K left',
    );
  });

  it('shows what it knows without a context: the cost and the note', () => {
    expect(plain(facts({ threshold: null, compactions: null, memoryAt: undefined, note: 'no memd' }))).toBe(
      '$1.23 · no memd',
    );
  });

  it('counts from the effective window when auto-compaction is off, and stops at 0 % past the threshold', () => {
    const off = threshold(90_000, { DISABLE_AUTO_COMPACT: '1' });
    expect(plain(facts({ threshold: off, compactions: null, memoryAt: undefined, costUsd: null }))).toBe(
      '▕████░░░░▏ 50% of window used · 87K left',
    );
    const past = threshold(180_000);
    expect(percentText(past)).toBe(`${past.percentUsed}% used of auto-compact`);
    expect(statusBar(past)).toBe('▕████████▏');
  });

  it('drops the least useful segments first to fit its width, never the percentage', () => {
    const full = plain(facts());
    const widths = [full.length, 70, 60, 45, 30, 10];
    const lines = widths.map((columns) => plain(facts(), columns));
    expect(lines[0]).toBe(full);
    expect(lines[1]).toBe('24% used of auto-compact · 127K left · 2 compactions · mem 3m · $1.23');
    expect(lines[2]).toBe('24% used of auto-compact · 127K left · mem 3m · $1.23');
    expect(lines[3]).toBe('24% used of auto-compact · 127K left · $1.23');
    expect(lines[4]).toBe('24% used of auto-compact');
    expect(lines[5]).toBe('24% used of auto-compact');
    lines.slice(0, 5).forEach((line, i) => expect([...line].length).toBeLessThanOrEqual(widths[i] as number));
  });

  it('colours the percentage by threshold state and dims the memory age, only when asked', () => {
    const green = formatStatusLine(facts(), { color: true, columns: 200, now: NOW });
    expect(green).toContain('\x1b[32m24% used of auto-compact\x1b[0m');
    expect(green).toContain('\x1b[2mmem 3m\x1b[0m');
    const red = formatStatusLine(facts({ threshold: threshold(160_000) }), { color: true, columns: 200, now: NOW });
    expect(red).toContain('\x1b[31m96% used of auto-compact\x1b[0m');
    expect(plain(facts())).not.toContain('\x1b');
  });

  it('says "context used" of the window when Claude Code compacts only once the API refuses (reactive mode)', () => {
    // Claude Code 2.1.197 on Opus 4.8: /context says 32.7k/1m (3%).
    const opus = facts({
      threshold: reactive(32_700, 'claude-opus-4-8'),
      compactions: null,
      memoryAt: undefined,
      costUsd: null,
    });
    expect(plain(opus)).toBe('▕░░░░░░░░▏ 3% context used · 967K left');
    // Sonnet 4.5 at 40K of 200K: 20 % used, 160K left; red in the error band, never "of auto-compact".
    expect(plain(facts({ threshold: reactive(40_000) }))).toBe(
      '▕██░░░░░░▏ 20% context used · 160K left · 2 compactions · mem 3m · $1.23',
    );
    expect(plain(facts({ threshold: reactive(40_000) }), 30)).toBe('20% context used · 160K left');
    const red = formatStatusLine(facts({ threshold: reactive(175_016) }), { color: true, columns: 200, now: NOW });
    expect(red).toContain('\x1b[31m88% context used\x1b[0m');
    expect(red).toContain('25K left');
    expect(percentText(reactive(230_000))).toBe('115% context used');
  });

  it('reads an answer without autoCompactMode (an older memd) as threshold mode', () => {
    const { autoCompactMode: _mode, ...older } = threshold(40_000);
    expect(percentText(older as ReturnType<typeof threshold>)).toBe('24% used of auto-compact');
  });

  it('says the share used in every mode, the number agreeing with the bar (issue 29)', () => {
    // The bar fills with the share used; its number must be that share, not the room left.
    for (const value of [
      threshold(40_000),
      threshold(120_000),
      threshold(90_000, { DISABLE_AUTO_COMPACT: '1' }),
      reactive(40_000),
    ]) {
      const used = Math.round((Math.min(100, value.percentUsed) / 100) * 8);
      expect(statusBar(value)).toBe(`▕${'█'.repeat(used)}${'░'.repeat(8 - used)}▏`);
      expect(percentText(value)).toMatch(
        new RegExp(`^${value.percentUsed}% (used of auto-compact|context used|of window used)$`),
      );
      expect(percentText(value)).not.toMatch(/until|left/);
    }
  });

  it('writes tokens and ages in few characters', () => {
    expect([950, 1_499, 131_400, 1_250_000].map(compactTokens)).toEqual(['950', '1K', '131K', '1.3M']);
    expect([0, 59_000, 61_000, 7_200_000, 3 * 86_400_000, -5_000].map(compactAge)).toEqual([
      '0s',
      '59s',
      '1m',
      '2h',
      '3d',
      '0s',
    ]);
  });
});

describe('the plan and cache segments (issue 31)', () => {
  const fiveHour = (usedPercent: number, inMs: number | null) => ({
    usedPercent,
    resetsAt: inMs === null ? null : NOW + inMs,
  });
  const cache = (warm: boolean | null, inMs: number | null, lastMissCause: string | null = null) => ({
    warm,
    expiresAt: inMs === null ? null : NOW + inMs,
    lastMissCause,
  });

  it("shows the 5-hour window's use and time to reset, and the cache warm with its time left or cold with the cause", () => {
    expect(plain(facts({ fiveHour: fiveHour(42.00000000000001, 112 * 60_000), cache: cache(true, 32 * 60_000) }))).toBe(
      '▕██░░░░░░▏ 24% used of auto-compact · 5h 42% ↻1h52m · 127K left · cache 32m · 2 compactions · mem 3m · $1.23',
    );
    expect(plain(facts({ fiveHour: fiveHour(7, null), cache: cache(false, null, 'tools_changed') }))).toContain(
      ' · 5h 7% · 127K left · cache cold: tools · ',
    );
    expect(plain(facts({ cache: cache(true, null) }))).toContain(' · cache warm · ');
    expect(plain(facts({ cache: cache(null, null) }))).not.toContain('cache');
    expect(plain(facts({ cache: cache(false, null, 'a_new_cause') }))).toContain(' · cache cold: a_new_cause · ');
  });

  it('says cold once a cache reported warm is past its expiry, and drops a window whose reset has passed', () => {
    expect(plain(facts({ cache: cache(true, 0) }))).toContain(' · cache cold: expired · ');
    // Idling past the expiry, not the last miss, is what left it cold.
    expect(plain(facts({ cache: cache(true, -1_000, 'tools_changed') }))).toContain(' · cache cold: expired · ');
    expect(plain(facts({ fiveHour: fiveHour(99, 0) }))).not.toContain('5h');
  });

  it('drops the cache before the tokens left, and the 5-hour window after everything but the percentage', () => {
    const both = facts({ fiveHour: fiveHour(42, 3_600_000), cache: cache(true, 60_000), note: 'no memd' });
    expect(plain(both, 78)).toBe('24% used of auto-compact · 5h 42% ↻1h · 127K left · cache 1m · $1.23 · no memd');
    expect(plain(both, 70)).toBe('24% used of auto-compact · 5h 42% ↻1h · 127K left · cache 1m · no memd');
    expect(plain(both, 69)).toBe('24% used of auto-compact · 5h 42% ↻1h · 127K left · no memd');
    expect(plain(both, 58)).toBe('24% used of auto-compact · 5h 42% ↻1h · no memd');
    expect(plain(both, 46)).toBe('24% used of auto-compact · 5h 42% ↻1h');
    expect(plain(both, 30)).toBe('24% used of auto-compact');
  });

  it('colours the 5-hour window yellow from 70 % and red from 90 %, a cold cache yellow', () => {
    const coloured = (value: StatusFacts) => formatStatusLine(value, { color: true, columns: 200, now: NOW });
    expect(coloured(facts({ fiveHour: fiveHour(69, 60_000) }))).toContain('5h 69% ↻1m ·');
    expect(coloured(facts({ fiveHour: fiveHour(70, 60_000) }))).toContain('\x1b[33m5h 70% ↻1m\x1b[0m');
    expect(coloured(facts({ fiveHour: fiveHour(90, 60_000) }))).toContain('\x1b[31m5h 90% ↻1m\x1b[0m');
    expect(coloured(facts({ cache: cache(false, null) }))).toContain('\x1b[33mcache cold\x1b[0m');
  });

  it('writes a time to come in two units from an hour on', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [59_499, '59s'],
      [60_000, '1m'],
      [3_599_000, '59m'],
      [3_600_000, '1h'],
      [6_720_000, '1h52m'],
      [86_400_000, '1d'],
      [266_400_000, '3d2h'],
      [-5_000, '0s'],
    ];
    for (const [ms, text] of cases) expect(compactDuration(ms)).toBe(text);
  });
});

describe('the model and its reasoning effort (issue 31)', () => {
  it('names the model in a word and a version, with the effort, first on the line', () => {
    expect(modelName('claude-opus-4-8[1m]')).toBe('Opus 4.8');
    expect(modelName('claude-sonnet-4-5-20250929')).toBe('Sonnet 4.5');
    expect(modelName('claude-sonnet-5')).toBe('Sonnet 5');
    expect(modelName('claude-opus-4-20250514')).toBe('Opus 4');
    expect(modelName('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet-20241022');
    expect(plain(facts({ model: { id: 'claude-opus-4-8[1m]', effort: 'high' } }))).toBe(
      'Opus 4.8 (high) · ▕██░░░░░░▏ 24% used of auto-compact · 127K left · 2 compactions · mem 3m · $1.23',
    );
    expect(plain(facts({ model: { id: null, effort: 'xhigh' } }))).toMatch(/^effort xhigh · ▕/);
  });

  it('shows no model without an effort: the line of an older Claude Code stays as it was', () => {
    expect(plain(facts({ model: undefined }))).toBe(plain(facts()));
  });

  it('goes right after the bar when the line is too wide, before the memory age and the cost', () => {
    const line = facts({ model: { id: 'claude-opus-4-8', effort: 'max' } });
    expect(plain(line, 86)).toBe(
      'Opus 4.8 (max) · 24% used of auto-compact · 127K left · 2 compactions · mem 3m · $1.23',
    );
    expect(plain(line, 85)).toBe('24% used of auto-compact · 127K left · 2 compactions · mem 3m · $1.23');
  });
});
