import { describe, expect, it } from 'vitest';
import { timeBound } from '../../../../shared/text/time-span.js';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

describe('timeBound', () => {
  it('reads spans and ISO times', () => {
    expect(timeBound('1d', NOW, 'since')).toBe('2026-12-04T12:00:00.000Z');
    expect(timeBound('2026-03-02T12:00:00+02:00', NOW, 'since')).toBe('2026-03-02T10:00:00.000Z');
  });

  it('clamps to four-digit years, which compare with stored timestamps as strings (issue 27)', () => {
    expect(timeBound('+275760-09-13T00:00:00.000Z', NOW, 'since')).toBe('9999-12-31T23:59:59.999Z');
    expect(timeBound('-271821-04-20T00:00:00.000Z', NOW, 'until')).toBe('0000-01-01T00:00:00.000Z');
    // A span reaching past the first Date threw RangeError, an InternalError on the wire.
    expect(timeBound('99999999999d', NOW, 'since')).toBe('0000-01-01T00:00:00.000Z');
    expect(timeBound(`${'9'.repeat(400)}w`, NOW, 'since')).toBe('0000-01-01T00:00:00.000Z');
  });

  it('refuses what is no time', () => {
    expect(() => timeBound('last tuesday', NOW, 'since')).toThrow(/since must be an ISO time/);
  });
});
