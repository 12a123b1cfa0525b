import { describe, expect, it } from 'vitest';
import { CHART_BOX, chartGeometry, MARK_GAP, renderChartSvg } from '../../../../shared/export/chart.js';
import type { ContextChart } from '../../../../shared/export/model.js';
import { sampleModel } from './sample.js';

const box = CHART_BOX;
const plotBottom = box.height - box.bottom;
const plotHeight = plotBottom - box.top;
const plotRight = box.width - box.right;

describe('chartGeometry', () => {
  const chart = sampleModel().chart;
  const geometry = chartGeometry(chart);

  it('puts the threshold line at its height on the token scale', () => {
    expect(geometry.yMax).toBeGreaterThanOrEqual(189_483);
    expect(geometry.threshold?.tokens).toBe(167_000);
    expect(geometry.threshold?.y).toBeCloseTo(plotBottom - (167_000 / geometry.yMax) * plotHeight, 6);
    // Above the lower points, below the peak that crossed it.
    expect(geometry.threshold?.y).toBeLessThan(geometry.line[0]?.y ?? 0);
    expect(geometry.threshold?.y).toBeGreaterThan(geometry.line[1]?.y ?? Number.POSITIVE_INFINITY);
  });

  it('spreads responses evenly, in order, and marks a compaction between the responses around it', () => {
    const xs = geometry.line.map((point) => point.x);
    expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 6);
    const mark = geometry.compactions[0];
    expect(mark?.x).toBeGreaterThan(xs[1]!);
    expect(mark?.x).toBeLessThan(xs[2]!);
    expect(mark?.x).toBeCloseTo((xs[1]! + xs[2]!) / 2, 6);
  });

  it('puts a compaction before every response at the left edge and after all at the right', () => {
    const edges = chartGeometry({
      ...chart,
      compactions: [0, 3].map((after) => ({ after, at: null, trigger: 'manual', preTokens: null })),
    });
    expect(edges.compactions.map((mark) => mark.x)).toEqual([box.left, plotRight]);
  });

  it('has round ticks from 0 up to the top, and no threshold line when auto-compaction is off', () => {
    expect(geometry.yTicks[0]).toEqual({ y: plotBottom, tokens: 0 });
    expect(geometry.yTicks[geometry.yTicks.length - 1]?.tokens).toBe(geometry.yMax);
    expect(chartGeometry({ ...chart, autoCompactAt: null }).threshold).toBeNull();
  });

  it('draws a session of 100,000 responses (no spread of them as arguments)', () => {
    const big: ContextChart = {
      points: Array.from({ length: 100_000 }, (_, index) => ({ at: null, tokens: index })),
      compactions: [],
      autoCompactAt: 167_000,
      window: 200_000,
      autoCompactMode: 'threshold',
    };
    const svg = renderChartSvg(big);
    expect(svg).toContain('class="context-line"');
    expect(svg).not.toContain('class="context-dot"');
  });
});

describe('renderChartSvg', () => {
  it('draws the line, the threshold and each compaction, with every text escaped', () => {
    const chart = sampleModel().chart;
    const svg = renderChartSvg({ ...chart, compactions: [{ ...chart.compactions[0]!, trigger: '<b>auto</b>' }] });
    expect(svg.match(/<line class="threshold" data-tokens="167000"/g)).toHaveLength(1);
    expect(svg.match(/<line class="compaction"/g)).toHaveLength(1);
    expect(svg.match(/<circle class="context-dot"/g)).toHaveLength(3);
    expect(svg).toContain('&#60;b&#62;auto&#60;/b&#62;');
    expect(svg).not.toContain('<b>');
    expect(svg).not.toMatch(/https?:/);
    expect(svg).toContain('>auto-compact 167K</text>');
  });

  it('labels the line the window when Claude Code compacts only once the API refuses (reactive mode)', () => {
    const chart = {
      ...sampleModel().chart,
      autoCompactAt: 1_000_000,
      window: 1_000_000,
      autoCompactMode: 'reactive' as const,
    };
    const svg = renderChartSvg(chart);
    expect(svg.match(/<line class="threshold" data-tokens="1000000"/g)).toHaveLength(1);
    expect(svg).toContain('>window 1M</text>');
    expect(svg).toContain('Claude Code compacts when the API refuses the request');
    expect(svg).not.toContain('auto-compact');
  });
});

describe('crowded compaction marks (issue 28 item 8)', () => {
  // 116 compactions over 2,000 responses, as on the long session: one every ~17 responses.
  const points = Array.from({ length: 2_000 }, (_, index) => ({ at: null, tokens: 1_000 + (index % 17) * 9_000 }));
  const compactions = Array.from({ length: 116 }, (_, index) => ({
    after: Math.round(((index + 1) * 2_000) / 117),
    at: null,
    trigger: index % 5 === 0 ? 'manual' : 'auto',
    preTokens: 150_000,
  }));
  const crowded: ContextChart = {
    points,
    compactions,
    autoCompactAt: 167_000,
    window: 200_000,
    autoCompactMode: 'threshold',
  };
  const svg = renderChartSvg(crowded);
  const labels = [...svg.matchAll(/<text class="compaction-label" x="([\d.]+)"[^>]*>([^<]*)<\/text>/g)];

  it('draws a bounded number of labels and marks, whatever the count', () => {
    const plotWidth = box.width - box.left - box.right;
    const bound = Math.floor(plotWidth / MARK_GAP) + 1;
    expect(labels.length).toBeGreaterThan(1);
    expect(labels.length).toBeLessThanOrEqual(bound);
    const marks =
      (svg.match(/<line class="compaction"/g) ?? []).length +
      (svg.match(/<rect class="compaction-band"/g) ?? []).length;
    expect(marks).toBe(labels.length);
  });

  it('never lets two labels overlap: each starts at least a label width after the one before', () => {
    const xs = labels.map((match) => Number(match[1]));
    for (let index = 1; index < xs.length; index++)
      expect(xs[index]! - xs[index - 1]!).toBeGreaterThanOrEqual(MARK_GAP);
    // A label fits in the gap: at most 7 characters.
    for (const match of labels) expect([...match[2]!].length).toBeLessThanOrEqual(7);
  });

  it('still counts every compaction: the groups add up to 116 and say so in their titles', () => {
    const groups = chartGeometry(crowded).compactionGroups;
    expect(groups.reduce((sum, group) => sum + group.marks.length, 0)).toBe(116);
    const counts = [...svg.matchAll(/data-count="(\d+)"/g)].map((match) => Number(match[1]));
    const singles = (svg.match(/<line class="compaction"/g) ?? []).length;
    expect(counts.reduce((sum, count) => sum + count, singles)).toBe(116);
    expect(svg).toMatch(
      /<title>\d+ compactions \(\d+ manual, \d+ auto\)|<title>\d+ compactions \(\d+ auto, \d+ manual\)/,
    );
  });

  it('keeps a single, lone compaction drawn as before: a line labelled with its trigger', () => {
    const one = renderChartSvg({ ...crowded, compactions: [compactions[0]!] });
    expect(one.match(/<line class="compaction"/g)).toHaveLength(1);
    expect(one).not.toContain('compaction-band');
    expect(one).toMatch(/<text class="compaction-label"[^>]*>manual<\/text>/);
  });
});
