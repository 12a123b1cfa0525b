import { describe, expect, it } from 'vitest';
import { computeThresholds, isEnvTruthy } from '../../../../shared/transcript/thresholds.js';

/** A 200K model (Opus 4.8 runs at 1M by default since Claude Code 2.1.197; see the 1M block below). */
const OPUS = 'claude-opus-4-6';

function at(tokens: number, env: Record<string, string | undefined> = {}, model = OPUS, reserveOutputTokens?: number) {
  return computeThresholds({ model, tokens, env, reserveOutputTokens });
}

describe('computeThresholds defaults', () => {
  it('reserves 20,000 of a 200K window and places every threshold below it', () => {
    expect(at(0)).toEqual({
      model: OPUS,
      tokens: 0,
      window: 200_000,
      effectiveWindow: 180_000,
      autoCompactAt: 167_000,
      warningAt: 147_000,
      errorAt: 147_000,
      blockingAt: 177_000,
      state: 'ok',
      tokensLeft: 167_000,
      percentUsed: 0,
      autoCompactEnabled: true,
    });
  });

  it('compacts a 200K window at 187,000 with no output reserve (the seed document figure)', () => {
    const result = at(187_000, {}, OPUS, 0);
    expect(result.effectiveWindow).toBe(200_000);
    expect(result.autoCompactAt).toBe(187_000);
    expect(result.warningAt).toBe(167_000);
    expect(result.blockingAt).toBe(197_000);
    expect(result.state).toBe('autocompact');
    expect(at(186_999, {}, OPUS, 0).state).toBe('error');
  });

  it('moves from ok straight to error: warning and error are both 20,000 below auto-compact', () => {
    expect(at(146_999).state).toBe('ok');
    expect(at(147_000).state).toBe('error');
    expect(at(166_999).state).toBe('error');
    expect(at(167_000).state).toBe('autocompact');
    expect(at(176_999).state).toBe('autocompact');
    expect(at(177_000).state).toBe('blocking');
  });

  it('reports tokens left and percent of the auto-compact threshold', () => {
    const result = at(152_000);
    expect(result.tokensLeft).toBe(15_000);
    expect(result.percentUsed).toBe(91);
    expect(at(170_000).tokensLeft).toBe(0);
    expect(at(200_000).percentUsed).toBe(120);
  });

  it('uses the 1M window for a model with the [1m] suffix', () => {
    const result = at(0, {}, 'claude-sonnet-4-5[1m]');
    expect(result).toMatchObject({ window: 1_000_000, effectiveWindow: 980_000, autoCompactAt: 967_000, blockingAt: 977_000 });
  });

  it('reserves only the model output limit when it is under 20,000 (Claude 3 Haiku: 4,096)', () => {
    const result = at(0, {}, 'claude-3-haiku-20240307');
    expect(result.effectiveWindow).toBe(195_904);
    expect(result.autoCompactAt).toBe(182_904);
  });

  it('uses the defaults for an unknown or missing model', () => {
    expect(at(0, {}, '').autoCompactAt).toBe(167_000);
    expect(at(0, {}, 'gpt-5').autoCompactAt).toBe(167_000);
  });
});

describe('computeThresholds overrides', () => {
  it('CLAUDE_CODE_AUTO_COMPACT_WINDOW replaces the window, clamped to 100K..1M', () => {
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '150000' })).toMatchObject({
      window: 150_000,
      effectiveWindow: 130_000,
      autoCompactAt: 117_000,
      blockingAt: 127_000,
    });
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '50000' }).window).toBe(100_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '5000000' }).window).toBe(1_000_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '400000' }, 'claude-opus-4-6[1m]').window).toBe(400_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: 'lots' }).window).toBe(200_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '0' }).window).toBe(200_000);
  });

  it('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE lowers the threshold to a share of the effective window, never raises it', () => {
    const half = at(80_000, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' });
    expect(half).toMatchObject({ autoCompactAt: 90_000, warningAt: 70_000, errorAt: 70_000, blockingAt: 177_000, state: 'error' });
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '95' }).autoCompactAt).toBe(167_000);
    // floor(180000 × 33.3 / 100) in floating point, as Claude Code computes it.
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '33.3' }).autoCompactAt).toBe(59_939);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '0' }).autoCompactAt).toBe(167_000);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '101' }).autoCompactAt).toBe(167_000);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: 'x' }).autoCompactAt).toBe(167_000);
  });

  it('CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE sets the blocking limit as given', () => {
    const result = at(160_000, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '150000' });
    expect(result.blockingAt).toBe(150_000);
    expect(result.state).toBe('blocking');
    expect(at(0, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '0' }).blockingAt).toBe(177_000);
    expect(at(0, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '-5' }).blockingAt).toBe(177_000);
  });

  it.each(['DISABLE_AUTO_COMPACT', 'DISABLE_COMPACT'])('%s turns auto-compaction off', (name) => {
    const result = at(170_000, { [name]: '1' });
    expect(result.autoCompactEnabled).toBe(false);
    // Without auto-compaction the meter is measured against the effective window...
    expect(result.warningAt).toBe(160_000);
    expect(result.errorAt).toBe(160_000);
    expect(result.state).toBe('error');
    // ...and the next event is the blocking limit.
    expect(result.tokensLeft).toBe(7_000);
    expect(result.percentUsed).toBe(94);
    expect(at(177_000, { [name]: 'true' }).state).toBe('blocking');
  });

  it('leaves auto-compaction on for falsy values', () => {
    expect(at(0, { DISABLE_AUTO_COMPACT: '0', DISABLE_COMPACT: 'false' }).autoCompactEnabled).toBe(true);
    expect(at(0, { DISABLE_AUTO_COMPACT: '' }).autoCompactEnabled).toBe(true);
  });

  it('combines the window override with an output reserve of 0', () => {
    const result = at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '300000' }, OPUS, 0);
    expect(result).toMatchObject({ window: 300_000, effectiveWindow: 300_000, autoCompactAt: 287_000, blockingAt: 297_000 });
  });
});

describe('isEnvTruthy', () => {
  it('accepts 1, true, yes and on in any case', () => {
    for (const value of ['1', 'true', 'TRUE', ' yes ', 'On']) expect(isEnvTruthy(value)).toBe(true);
    for (const value of [undefined, '', '0', 'false', 'no', 'enabled']) expect(isEnvTruthy(value)).toBe(false);
  });
});

describe('computeThresholds at 1M (Claude Code 2.1.197: Opus 4.8 by default)', () => {
  const M = 'claude-opus-4-8';
  it('computes every threshold from the 1M window as Claude Code does', () => {
    // effective = 1,000,000 - min(64,000, 20,000); auto-compact 13,000 below; error/warning 20,000 below that; blocking 3,000 below effective.
    expect(at(32_700, {}, M)).toMatchObject({
      window: 1_000_000,
      effectiveWindow: 980_000,
      autoCompactAt: 967_000,
      warningAt: 947_000,
      errorAt: 947_000,
      blockingAt: 977_000,
      state: 'ok',
      tokensLeft: 934_300,
      percentUsed: 3,
    });
    expect(at(946_999, {}, M).state).toBe('ok');
    expect(at(947_000, {}, M).state).toBe('error');
    expect(at(967_000, {}, M).state).toBe('autocompact');
    expect(at(977_000, {}, M).state).toBe('blocking');
  });

  it('takes the window Claude Code stated over the table, and CLAUDE_CODE_AUTO_COMPACT_WINDOW over both', () => {
    expect(computeThresholds({ model: M, tokens: 0, env: {}, window: 200_000 })).toMatchObject({ window: 200_000, autoCompactAt: 167_000 });
    expect(computeThresholds({ model: 'claude-sonnet-4-5', tokens: 0, env: {}, window: 1_000_000 })).toMatchObject({ window: 1_000_000, autoCompactAt: 967_000 });
    expect(computeThresholds({ model: M, tokens: 0, env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '50000' }, window: 200_000 }).window).toBe(100_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '5000000' }, M).window).toBe(1_000_000);
  });
});
