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
});
