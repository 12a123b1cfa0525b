/** The ends of a usage report's window as people write them (shared/usage/bounds.ts). */
import { describe, expect, it } from 'vitest';
import { parseBound } from '../../../../shared/usage/bounds.js';

describe('parseBound', () => {
  it('reads spans back from now', () => {
    expect(parseBound('30d')).toEqual({ kind: 'span', amount: 30, unit: 'd' });
    expect(parseBound(' 2w ')).toEqual({ kind: 'span', amount: 2, unit: 'w' });
    expect(parseBound('12h')).toEqual({ kind: 'span', amount: 12, unit: 'h' });
    expect(parseBound('90m')).toEqual({ kind: 'span', amount: 90, unit: 'm' });
  });

  it('reads days, as ISO dates and as ccusage writes them', () => {
    expect(parseBound('2026-03-01')).toEqual({ kind: 'day', year: 2026, month: 3, day: 1 });
    expect(parseBound('20260301')).toEqual({ kind: 'day', year: 2026, month: 3, day: 1 });
    expect(parseBound('2024-02-29')).toEqual({ kind: 'day', year: 2024, month: 2, day: 29 });
  });

  it('reads ISO times with a time of day', () => {
    expect(parseBound('2026-03-01T12:00:00Z')).toEqual({ kind: 'instant', ms: Date.parse('2026-03-01T12:00:00Z') });
    expect(parseBound('2026-03-01T12:00:00+05:30')).toEqual({
      kind: 'instant',
      ms: Date.parse('2026-03-01T06:30:00Z'),
    });
  });

  it('refuses what is none of those', () => {
    for (const text of [
      '',
      '0d',
      '30',
      'd',
      '3x',
      'yesterday',
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-03-01T99:00',
      '1000000d',
      'all',
    ])
      expect(parseBound(text), text).toBeNull();
  });
});
