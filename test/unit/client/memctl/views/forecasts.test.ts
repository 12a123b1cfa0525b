import { describe, expect, it } from 'vitest';
import { plainOutput } from '../../../../../client/memctl/output.js';
import { forecastLines } from '../../../../../client/memctl/views/forecasts.js';
import { answer, at, NOW } from '../../../../helpers/forecast-answer.js';

const out = plainOutput();

describe('memctl status SESSION: the forecasts', () => {
  it('shows each forecast with the pace it assumed and its provenance, the basis on -v', () => {
    const lines = forecastLines(answer(), out, NOW, false);
    expect(lines).toEqual([
      '  forecast  at 13:08Z (estimated: memd computed it; -v: the basis of each)',
      '  compact   auto-compact in 3 turns (~14 min): +7K tokens and 4.5 min a turn over 6 turns, 22K left of 167K  (estimated)',
      '  5h limit  reached at 14:35Z (in 1h27m) at this pace (40%/h); 42% used, resets 15:00Z (in 1h52m)  (estimated; used and reset official)',
      '  rebuild   idling past 13:12Z (in 4m) costs $0.50 to rebuild (145K tokens, 5m TTL)  (estimated, expiry official)',
    ]);
    const verbose = forecastLines(answer(), out, NOW, true);
    expect(verbose[0]).toBe('  forecast  at 13:08Z (estimated: memd computed it)');
    expect(verbose[2]).toMatch(/^ {12}basis: The context grew 6\.8K tokens a turn/);
    const bases = verbose.filter((line) => line.startsWith(' '.repeat(12)));
    expect(bases.length).toBeGreaterThan(3);
    for (const line of bases) expect(line.length).toBeLessThanOrEqual(80);
    expect(verbose.join('\n')).toContain('spend is 40% of the window.');
  });

  it('says the reset comes first, what was not reported, and why there is no figure', () => {
    const base = answer();
    const lines = forecastLines(
      answer({
        autoCompact: { ...base.autoCompact, turns: null, minutes: null, growthPerTurn: null, sampleTurns: 1 },
        limit: { ...base.limit, reachedAt: null, resetFirst: true, percentPerHour: 5 },
        cacheRebuild: { ...base.cacheRebuild, expiresAt: at('2026-12-05T13:00:00Z'), costUsd: null },
      }),
      out,
      NOW,
      false,
    );
    expect(lines[1]).toBe(
      '  compact   auto-compact: no forecast, pace unknown (1 turn sampled); 22K tokens left  (estimated)',
    );
    expect(lines[2]).toContain('  5h limit  the reset at 15:00Z (in 1h52m) comes first at this pace (5%/h); 42% used');
    expect(lines[3]).toContain(
      'cache expired at 13:00Z: the next turn rebuilds it for an unknown cost (unpriced model) (145K tokens, 5m TTL)',
    );
    const unreported = forecastLines(
      answer({
        autoCompact: { ...base.autoCompact, autoCompactEnabled: false, turns: 0, minutes: 2 },
        limit: { ...base.limit, usedPercent: null, resetsAt: null, percentPerHour: null, reachedAt: null },
      }),
      out,
      NOW,
      false,
    );
    expect(unreported[1]).toContain('the blocking limit (auto-compact is off) at the next turn (~2 min)');
    const long = forecastLines(
      answer({ autoCompact: { ...base.autoCompact, turns: 30, minutes: 123 } }),
      out,
      NOW,
      false,
    );
    expect(long[1]).toContain('auto-compact in 30 turns (~2h3m)');
    expect(unreported[2]).toContain('  5h limit  not reported (Claude Code sends rate_limits');
  });
});
