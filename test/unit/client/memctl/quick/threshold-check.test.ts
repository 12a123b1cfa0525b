/**
 * The status line checks a threshold by hand (it may not load the schemas: its start-up budget);
 * one table of answers shows that it says what the shared schema says.
 */
import { describe, expect, it } from 'vitest';
import { thresholdOf } from '../../../../../client/memctl/quick/threshold-check.js';
import { answerOrNull } from '../../../../../shared/protocol/schema.js';
import { thresholdResultSchema } from '../../../../../shared/protocol/sessions.js';

const GOOD = {
  model: 'claude-opus-4-8',
  tokens: 32_700,
  window: 1_000_000,
  effectiveWindow: 1_000_000,
  autoCompactAt: 1_000_000,
  warningAt: 1_000_000,
  errorAt: 1_000_000,
  blockingAt: 1_000_000,
  state: 'ok',
  tokensLeft: 967_300,
  percentUsed: 3,
  autoCompactEnabled: true,
  autoCompactMode: 'reactive',
};

const without = (key: string) => Object.fromEntries(Object.entries(GOOD).filter(([k]) => k !== key));
const WRONG: Record<string, unknown> = { model: 4, state: 'full', autoCompactEnabled: 'yes', autoCompactMode: 'later' };

const CASES: [string, unknown][] = [
  ['a whole threshold', GOOD],
  ['one with a field of a newer memd', { ...GOOD, forecast: { at: 'soon' } }],
  ['one from a memd before the reactive mode', without('autoCompactMode')],
  ...Object.keys(GOOD).map((key): [string, unknown] => [`one without ${key}`, without(key)]),
  ...Object.keys(GOOD).map((key): [string, unknown] => [
    `one with a bad ${key}`,
    { ...GOOD, [key]: WRONG[key] ?? 'many' },
  ]),
  ['one with an infinite count', { ...GOOD, tokens: Number.POSITIVE_INFINITY }],
  ['null', null],
  ['an array', [GOOD]],
  ['a string', 'ok'],
];

describe("the status line's threshold check", () => {
  it.each(CASES)('says what the schema says of %s', (_, value) => {
    expect(thresholdOf(value)).toEqual(answerOrNull(thresholdResultSchema, value, 'sessions.get'));
  });

  it('takes a whole threshold and refuses a broken one', () => {
    expect(thresholdOf(GOOD)).toEqual(GOOD);
    expect(thresholdOf(without('autoCompactMode'))?.autoCompactMode).toBe('threshold');
    expect(thresholdOf({ ...GOOD, state: 'full' })).toBeNull();
  });
});
