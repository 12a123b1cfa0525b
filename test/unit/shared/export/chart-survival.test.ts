import { describe, expect, it } from 'vitest';
import { renderChartSvg } from '../../../../shared/export/chart.js';
import { sampleModel } from './sample.js';

describe("the chart's compaction marks with a survival score (issue 32)", () => {
  it('label the mark with what the summary kept, and say it in its title', () => {
    const chart = sampleModel().chart;
    const mark = chart.compactions[0];
    if (mark === undefined) throw new Error('the sample has a compaction');
    const svg = renderChartSvg({ ...chart, compactions: [{ ...mark, kept: { kept: 41, total: 43 } }] });
    expect(svg).toMatch(/<text class="compaction-label"[^>]*>\w+ 41\/43<\/text>/);
    expect(svg).toContain('its summary kept 41/43 facts');
    expect(renderChartSvg({ ...chart, compactions: [mark] })).not.toContain('41/43');
  });

  it("puts the label left of a mark near the chart's right edge, where it would be cut, and right of one elsewhere", () => {
    const chart = sampleModel().chart;
    const kept = { kept: 41, total: 43 };
    // After the last of 3 responses: the mark is at the plot's right end.
    const late = renderChartSvg({
      ...chart,
      compactions: [{ after: 3, at: null, trigger: 'auto', preTokens: null, kept }],
    });
    const x = (svg: string) => Number(/<line class="compaction" x1="([\d.]+)"/.exec(svg)?.[1]);
    expect(late).toContain(`<text class="compaction-label" x="${(x(late) - 4).toFixed(1)}" text-anchor="end"`);
    const early = renderChartSvg({
      ...chart,
      compactions: [{ after: 1, at: null, trigger: 'auto', preTokens: null, kept }],
    });
    expect(early).toContain(`<text class="compaction-label" x="${(x(early) + 4).toFixed(1)}" y=`);
  });
});
