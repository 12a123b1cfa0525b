import { describe, expect, it } from 'vitest';
import { CHART_BOX, chartGeometry, renderChartSvg } from '../../../../shared/export/chart.js';
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
    const edges = chartGeometry({ ...chart, compactions: [0, 3].map((after) => ({ after, at: null, trigger: 'manual', preTokens: null })) });
    expect(edges.compactions.map((mark) => mark.x)).toEqual([box.left, plotRight]);
  });

  it('has round ticks from 0 up to the top, and no threshold line when auto-compaction is off', () => {
    expect(geometry.yTicks[0]).toEqual({ y: plotBottom, tokens: 0 });
    expect(geometry.yTicks[geometry.yTicks.length - 1]?.tokens).toBe(geometry.yMax);
    expect(chartGeometry({ ...chart, autoCompactAt: null }).threshold).toBeNull();
  });

  it('draws a session of 100,000 responses (no spread of them as arguments)', () => {
    const big: ContextChart = { points: Array.from({ length: 100_000 }, (_, index) => ({ at: null, tokens: index })), compactions: [], autoCompactAt: 167_000, window: 200_000 };
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
  });
});
