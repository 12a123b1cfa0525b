import { describe, expect, it } from 'vitest';
import { autoCompactWindow, computeThresholds, isEnvTruthy } from '../../../../shared/transcript/thresholds.js';

/**
 * Claude Code 2.1.197's thresholds (shared/transcript/thresholds.ts). Two modes: with an
 * auto-compact window (CLAUDE_CODE_AUTO_COMPACT_WINDOW, or the model's own: Sonnet/Opus 4.6 below
 * 1M, Sonnet 5) it compacts ahead of the limit ("threshold"); without one (most models) it
 * compacts only when the API refuses the request ("reactive").
 */

/** A 200K model with a model-default auto-compact window of 200K: threshold mode with no env. */
const OPUS_4_6 = 'claude-opus-4-6';
/** A 200K model without one: reactive mode with no env. */
const SONNET_4_5 = 'claude-sonnet-4-5';
/** Claude Code 2.1.197's default model: native 1M, reactive. */
const OPUS_4_8 = 'claude-opus-4-8';
/** Sets a 200K auto-compact window, so a reactive model compacts ahead like 2.1.x before 2.1.197. */
const WINDOW_200K = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' };

function at(
  tokens: number,
  env: Record<string, string | undefined> = {},
  model = OPUS_4_6,
  reserveOutputTokens?: number,
) {
  return computeThresholds({ model, tokens, env, reserveOutputTokens });
}

describe('the window and the mode of each model (Claude Code 2.1.197)', () => {
  it.each([
    // model, window, mode, effectiveWindow, autoCompactAt, blockingAt, warningAt
    ['claude-opus-4-7', 1_000_000, 'reactive', 980_000, 1_000_000, 1_000_000, 947_000],
    ['claude-opus-4-8', 1_000_000, 'reactive', 980_000, 1_000_000, 1_000_000, 947_000],
    ['claude-sonnet-5', 1_000_000, 'threshold', 947_000, 934_000, 977_000, 914_000],
    ['claude-sonnet-4-5[1m]', 1_000_000, 'reactive', 980_000, 1_000_000, 1_000_000, 947_000],
    ['claude-sonnet-4-6[1m]', 1_000_000, 'reactive', 980_000, 1_000_000, 1_000_000, 947_000],
    ['claude-opus-4-6[1m]', 1_000_000, 'reactive', 980_000, 1_000_000, 1_000_000, 947_000],
    ['claude-sonnet-4-5', 200_000, 'reactive', 180_000, 200_000, 200_000, 147_000],
    ['claude-sonnet-4-6', 200_000, 'threshold', 180_000, 167_000, 177_000, 147_000],
    ['claude-opus-4-6', 200_000, 'threshold', 180_000, 167_000, 177_000, 147_000],
    ['claude-haiku-4-5-20251001', 200_000, 'reactive', 180_000, 200_000, 200_000, 147_000],
    ['', 200_000, 'reactive', 180_000, 200_000, 200_000, 147_000],
    ['gpt-5', 200_000, 'reactive', 180_000, 200_000, 200_000, 147_000],
  ] as const)(
    '%s: window %i, %s mode',
    (model, window, autoCompactMode, effectiveWindow, autoCompactAt, blockingAt, warningAt) => {
      expect(at(0, {}, model)).toMatchObject({
        window,
        autoCompactMode,
        effectiveWindow,
        autoCompactAt,
        blockingAt,
        warningAt,
        errorAt: warningAt,
        autoCompactEnabled: true,
      });
    },
  );

  it('Sonnet 5 compacts at its 967K model window: effective 947,000, auto-compact 934,000, blocking 977,000', () => {
    const sonnet5 = 'claude-sonnet-5';
    expect(autoCompactWindow(sonnet5, {}, 1_000_000)).toBe(967_000);
    expect(at(913_999, {}, sonnet5).state).toBe('ok');
    expect(at(914_000, {}, sonnet5).state).toBe('error');
    expect(at(934_000, {}, sonnet5)).toMatchObject({ state: 'autocompact', tokensLeft: 0, percentUsed: 100 });
    expect(at(977_000, {}, sonnet5).state).toBe('blocking');
    expect(at(900_000, {}, sonnet5)).toMatchObject({ tokensLeft: 34_000, percentUsed: 96 });
  });

  it('Sonnet 4.6 compacts at its 200K model window, and reacts at 1M with [1m]', () => {
    expect(autoCompactWindow('claude-sonnet-4-6', {}, 200_000)).toBe(200_000);
    expect(autoCompactWindow('claude-sonnet-4-6[1m]', {}, 1_000_000)).toBeNull();
    expect(at(167_000, {}, 'claude-sonnet-4-6')).toMatchObject({ autoCompactMode: 'threshold', state: 'autocompact' });
    expect(at(167_000, {}, 'claude-sonnet-4-6[1m]')).toMatchObject({
      autoCompactMode: 'reactive',
      state: 'ok',
      tokensLeft: 833_000,
      percentUsed: 17,
    });
    // A 1M window Claude Code stated for a bare claude-sonnet-4-6 drops the model window too.
    expect(
      computeThresholds({ model: 'claude-sonnet-4-6', tokens: 0, env: {}, window: 1_000_000 }).autoCompactMode,
    ).toBe('reactive');
  });
});

describe('threshold mode (an auto-compact window is configured)', () => {
  it('reserves 20,000 of a 200K window and places every threshold below it', () => {
    expect(at(0)).toEqual({
      model: OPUS_4_6,
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
      autoCompactMode: 'threshold',
    });
  });

  it('compacts a 200K window at 187,000 with no output reserve (the seed document figure)', () => {
    const result = at(187_000, {}, OPUS_4_6, 0);
    expect(result.effectiveWindow).toBe(200_000);
    expect(result.autoCompactAt).toBe(187_000);
    expect(result.warningAt).toBe(167_000);
    expect(result.blockingAt).toBe(197_000);
    expect(result.state).toBe('autocompact');
    expect(at(186_999, {}, OPUS_4_6, 0).state).toBe('error');
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

  it('reserves only the model output limit when it is under 20,000 (Claude 3 Haiku: 4,096)', () => {
    const haiku3 = 'claude-3-haiku-20240307';
    expect(at(0, WINDOW_200K, haiku3)).toMatchObject({
      effectiveWindow: 195_904,
      autoCompactAt: 182_904,
      blockingAt: 192_904,
      autoCompactMode: 'threshold',
    });
    // Reactive by default: the reserve still moves the effective window and the warnings.
    expect(at(0, {}, haiku3)).toMatchObject({
      effectiveWindow: 195_904,
      autoCompactAt: 200_000,
      warningAt: 162_904,
      autoCompactMode: 'reactive',
    });
  });
});

describe('CLAUDE_CODE_AUTO_COMPACT_WINDOW', () => {
  it('sets the auto-compact window, clamped to 100K..1M and at most the context window; the window stays', () => {
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '150000' }, SONNET_4_5)).toMatchObject({
      window: 200_000,
      autoCompactMode: 'threshold',
      effectiveWindow: 130_000,
      autoCompactAt: 117_000,
      warningAt: 97_000,
      // Blocking stays where the context window puts it.
      blockingAt: 177_000,
    });
    expect(autoCompactWindow(SONNET_4_5, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '50000' }, 200_000)).toBe(100_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '50000' }, SONNET_4_5)).toMatchObject({
      window: 200_000,
      effectiveWindow: 80_000,
      autoCompactAt: 67_000,
    });
    // Above the window it is the window: a 200K session with 400K set compacts at 167K.
    expect(autoCompactWindow(SONNET_4_5, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '400000' }, 200_000)).toBe(200_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '400000' }, SONNET_4_5)).toMatchObject({
      window: 200_000,
      autoCompactAt: 167_000,
    });
    expect(autoCompactWindow(OPUS_4_8, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '5000000' }, 1_000_000)).toBe(1_000_000);
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '5000000' }, OPUS_4_8)).toMatchObject({
      window: 1_000_000,
      autoCompactMode: 'threshold',
      autoCompactAt: 967_000,
      blockingAt: 977_000,
    });
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '400000' }, 'claude-opus-4-6[1m]')).toMatchObject({
      window: 1_000_000,
      effectiveWindow: 380_000,
      autoCompactAt: 367_000,
      blockingAt: 977_000,
    });
  });

  it('ignores values that are not a positive integer', () => {
    for (const value of ['lots', '0', '-5', '']) {
      expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: value }, SONNET_4_5)).toMatchObject({
        window: 200_000,
        autoCompactMode: 'reactive',
      });
      expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: value }, OPUS_4_6)).toMatchObject({
        window: 200_000,
        autoCompactMode: 'threshold',
        autoCompactAt: 167_000,
      });
    }
  });

  it('overrides the model window (Sonnet 5 at 500K compacts at 467,000)', () => {
    expect(at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '500000' }, 'claude-sonnet-5')).toMatchObject({
      window: 1_000_000,
      effectiveWindow: 480_000,
      autoCompactAt: 467_000,
    });
  });

  it('combines with an output reserve of 0', () => {
    const result = at(0, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '150000' }, SONNET_4_5, 0);
    expect(result).toMatchObject({
      window: 200_000,
      effectiveWindow: 150_000,
      autoCompactAt: 137_000,
      blockingAt: 197_000,
    });
  });

  it('takes the window Claude Code stated over the table, and keeps it under the env', () => {
    expect(computeThresholds({ model: OPUS_4_8, tokens: 0, env: {}, window: 200_000 })).toMatchObject({
      window: 200_000,
      autoCompactMode: 'reactive',
      autoCompactAt: 200_000,
    });
    expect(computeThresholds({ model: OPUS_4_8, tokens: 0, env: WINDOW_200K, window: 200_000 })).toMatchObject({
      window: 200_000,
      autoCompactAt: 167_000,
    });
    expect(computeThresholds({ model: SONNET_4_5, tokens: 0, env: {}, window: 1_000_000 })).toMatchObject({
      window: 1_000_000,
      autoCompactAt: 1_000_000,
    });
    expect(
      computeThresholds({
        model: OPUS_4_8,
        tokens: 0,
        env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '50000' },
        window: 200_000,
      }),
    ).toMatchObject({ window: 200_000, effectiveWindow: 80_000 });
  });
});

describe('reactive mode (no auto-compact window: compacts when the API refuses)', () => {
  it('Opus 4.8 at 30,016 tokens: 969,984 left of 1M, 3 % used (/context: 30k/1m)', () => {
    expect(at(30_016, {}, OPUS_4_8)).toEqual({
      model: OPUS_4_8,
      tokens: 30_016,
      window: 1_000_000,
      effectiveWindow: 980_000,
      autoCompactAt: 1_000_000,
      warningAt: 947_000,
      errorAt: 947_000,
      blockingAt: 1_000_000,
      state: 'ok',
      tokensLeft: 969_984,
      percentUsed: 3,
      autoCompactEnabled: true,
      autoCompactMode: 'reactive',
    });
  });

  it('Sonnet 4.5 at 175,016 tokens: 24,984 left, 88 % used, in the error band', () => {
    expect(at(175_016, {}, SONNET_4_5)).toMatchObject({
      window: 200_000,
      tokensLeft: 24_984,
      percentUsed: 88,
      state: 'error',
      autoCompactMode: 'reactive',
    });
  });

  it('never blocks: ok, then error at the meter, then autocompact only at the window', () => {
    expect(at(146_999, {}, SONNET_4_5).state).toBe('ok');
    expect(at(147_000, {}, SONNET_4_5).state).toBe('error');
    // Past the point where threshold mode would compact (167,000) and block (177,000).
    expect(at(177_000, {}, SONNET_4_5).state).toBe('error');
    expect(at(199_999, {}, SONNET_4_5)).toMatchObject({ state: 'error', tokensLeft: 1 });
    expect(at(200_000, {}, SONNET_4_5)).toMatchObject({ state: 'autocompact', tokensLeft: 0, percentUsed: 100 });
    expect(at(230_000, {}, SONNET_4_5)).toMatchObject({ state: 'autocompact', tokensLeft: 0, percentUsed: 115 });
    expect(at(999_999, {}, OPUS_4_8).state).toBe('error');
    expect(at(1_000_000, {}, OPUS_4_8).state).toBe('autocompact');
  });

  it('ignores the blocking override, which applies once auto-compaction is off', () => {
    expect(at(160_000, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '150000' }, SONNET_4_5)).toMatchObject({
      blockingAt: 200_000,
      state: 'error',
    });
    expect(
      at(160_000, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '150000', DISABLE_AUTO_COMPACT: '1' }, SONNET_4_5),
    ).toMatchObject({ blockingAt: 150_000, state: 'blocking' });
  });

  it('moves the meter with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, never the compaction point', () => {
    // floor(180,000 × 50 %) = 90,000, the meter 20,000 below it.
    expect(at(80_000, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' }, SONNET_4_5)).toMatchObject({
      autoCompactAt: 200_000,
      warningAt: 70_000,
      errorAt: 70_000,
      state: 'error',
      tokensLeft: 120_000,
      percentUsed: 40,
    });
  });
});

describe('overrides', () => {
  it('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE lowers the threshold to a share of the effective window, never raises it', () => {
    const half = at(80_000, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' });
    expect(half).toMatchObject({
      autoCompactAt: 90_000,
      warningAt: 70_000,
      errorAt: 70_000,
      blockingAt: 177_000,
      state: 'error',
    });
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '95' }).autoCompactAt).toBe(167_000);
    // floor(180000 × 33.3 / 100) in floating point, as Claude Code computes it.
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '33.3' }).autoCompactAt).toBe(59_939);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '0' }).autoCompactAt).toBe(167_000);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '101' }).autoCompactAt).toBe(167_000);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: 'x' }).autoCompactAt).toBe(167_000);
    // With the env window on a reactive model, and on Sonnet 5's own window.
    expect(at(0, { ...WINDOW_200K, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' }, SONNET_4_5).autoCompactAt).toBe(90_000);
    expect(at(0, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' }, 'claude-sonnet-5').autoCompactAt).toBe(473_500);
  });

  it('CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE sets the blocking limit as given in threshold mode', () => {
    const result = at(160_000, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '150000' });
    expect(result.blockingAt).toBe(150_000);
    expect(result.state).toBe('blocking');
    expect(at(0, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '0' }).blockingAt).toBe(177_000);
    expect(at(0, { CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE: '-5' }).blockingAt).toBe(177_000);
  });

  it.each(['DISABLE_AUTO_COMPACT', 'DISABLE_COMPACT'])('%s turns auto-compaction off in threshold mode', (name) => {
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

  it.each(['DISABLE_AUTO_COMPACT', 'DISABLE_COMPACT'])(
    '%s turns auto-compaction off in reactive mode: it blocks as threshold mode does',
    (name) => {
      const result = at(170_000, { [name]: '1' }, SONNET_4_5);
      expect(result).toMatchObject({
        autoCompactEnabled: false,
        autoCompactMode: 'reactive',
        autoCompactAt: 167_000,
        warningAt: 160_000,
        blockingAt: 177_000,
        state: 'error',
        tokensLeft: 7_000,
        percentUsed: 94,
      });
      expect(at(177_000, { [name]: 'on' }, SONNET_4_5).state).toBe('blocking');
      expect(at(0, { [name]: '1' }, OPUS_4_8)).toMatchObject({
        autoCompactAt: 967_000,
        blockingAt: 977_000,
        tokensLeft: 977_000,
      });
    },
  );

  it('leaves auto-compaction on for falsy values', () => {
    expect(at(0, { DISABLE_AUTO_COMPACT: '0', DISABLE_COMPACT: 'false' }).autoCompactEnabled).toBe(true);
    expect(at(0, { DISABLE_AUTO_COMPACT: '' }).autoCompactEnabled).toBe(true);
  });
});

describe('isEnvTruthy', () => {
  it('accepts 1, true, yes and on in any case', () => {
    for (const value of ['1', 'true', 'TRUE', ' yes ', 'On']) expect(isEnvTruthy(value)).toBe(true);
    for (const value of [undefined, '', '0', 'false', 'no', 'enabled']) expect(isEnvTruthy(value)).toBe(false);
  });
});
