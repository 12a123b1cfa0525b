/** The forecasts of usage.status in a few words, as the VS Code and Neovim views show them. */
import { describe, expect, it } from 'vitest';
import { autoCompactText, cacheRebuildText, forecastLines, limitText } from '../../../../shared/statusline/forecast.js';
import { FORECAST_NOW as NOW, type UsageStatusParts, usageStatus } from '../../../helpers/usage-status.js';

const auto = (parts: UsageStatusParts['autoCompact']) => usageStatus({ autoCompact: parts }).autoCompact;
const limit = (parts: UsageStatusParts['limit']) => usageStatus({ limit: parts }).limit;
const cache = (parts: UsageStatusParts['cacheRebuild']) => usageStatus({ cacheRebuild: parts }).cacheRebuild;

describe('the auto-compact forecast', () => {
  it.each([
    [{}, 'auto-compact in 4 turns ~12m'],
    [{ turns: 1, minutes: 75 }, 'auto-compact in 1 turn ~1h15m'],
    [{ turns: 3, minutes: null }, 'auto-compact in 3 turns'],
    [{ turns: 0 }, 'auto-compact at the next turn'],
    [{ turns: null, minutes: null }, 'auto-compact: 47K left, pace unknown'],
    [{ autoCompactEnabled: false, turns: 9, minutes: 0.4 }, 'blocking in 9 turns ~24s'],
  ])('%j → %s', (parts, text) => {
    expect(autoCompactText(auto(parts))).toBe(text);
  });
});

describe('the 5-hour limit forecast', () => {
  it.each([
    [{}, '5h limit in 1h27m at this pace'],
    [{ reachedAt: NOW - 1 }, '5h limit reached'],
    [{ reachedAt: null, resetFirst: true }, '5h window resets first (↻1h52m)'],
    [{ reachedAt: null, resetFirst: true, resetsAt: null }, '5h window resets first'],
    [{ reachedAt: null, percentPerHour: null }, '5h 42% used, pace unknown'],
    [{ usedPercent: null, resetsAt: null, reachedAt: null }, '5h limit: not reported'],
    [{ resetsAt: NOW, reachedAt: null }, '5h limit: window reset, not reported since'],
  ])('%j → %s', (parts, text) => {
    expect(limitText(limit(parts), NOW)).toBe(text);
  });
});

describe('the cache rebuild forecast', () => {
  it.each([
    [{}, 'cache expires in 4m: rebuild $0.43 (131K)'],
    [{ expiresAt: NOW }, 'cache expired: rebuild $0.43 (131K)'],
    [{ expiresAt: null, ttl: '1h' }, 'cache idle past 1h: rebuild $0.43 (131K)'],
    [{ costUsd: null, tokens: 1_250_000 }, 'cache expires in 4m: rebuild unpriced (1.3M)'],
  ])('%j → %s', (parts, text) => {
    expect(cacheRebuildText(cache(parts), NOW)).toBe(text);
  });
});

describe('forecastLines', () => {
  it('gives the three, most pressing first, each with its provenance and basis', () => {
    const result = usageStatus({ limit: { provenance: 'official' } });
    expect(forecastLines(result, NOW)).toEqual([
      {
        kind: 'autoCompact',
        text: 'auto-compact in 4 turns ~12m',
        provenance: 'estimated',
        basis: result.autoCompact.basis,
      },
      { kind: 'limit', text: '5h limit in 1h27m at this pace', provenance: 'official', basis: result.limit.basis },
      {
        kind: 'cacheRebuild',
        text: 'cache expires in 4m: rebuild $0.43 (131K)',
        provenance: 'estimated',
        basis: result.cacheRebuild.basis,
      },
    ]);
  });
});
