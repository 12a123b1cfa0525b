/** Issue 28 item 6: a long hit message was shown by its head, cut before the match. */
import { describe, expect, it } from 'vitest';
import { excerptAround, queryTerms } from '../../../../shared/text/excerpt.js';

describe('queryTerms', () => {
  it('takes the words of a query without FTS5 operators, or the marked terms of a snippet', () => {
    expect(queryTerms('"capybara marker" OR NEAR(build log, 5) NOT zebra invoic*')).toEqual([
      'capybara',
      'marker',
      'build',
      'log',
      '5',
      'zebra',
      'invoic*',
    ]);
    expect(queryTerms('…the «Capybara» «marker» in…')).toEqual(['capybara', 'marker']);
  });
});

describe('excerptAround', () => {
  const long = `${'tool output; '.repeat(260)}Find the capybara marker please.`;

  it('shows the part around a match near the end of a 3.4K text', () => {
    const excerpt = excerptAround(long, ['capybara'], 600);
    expect(excerpt).toContain('Find the capybara marker please.');
    expect(excerpt.startsWith('…')).toBe(true);
    expect(excerpt.length).toBeLessThanOrEqual(602);
  });

  it('shows head and tail without a match, and short texts whole', () => {
    expect(excerptAround(long, [], 600)).toMatch(/^tool output;.* … .*capybara marker please\.$/s);
    expect(excerptAround('short', ['x'], 600)).toBe('short');
  });

  it('matches a prefix term at a word start only', () => {
    expect(excerptAround(`${'a'.repeat(1000)} invoices`, ['invoic*'], 50)).toContain('invoices');
  });
});
