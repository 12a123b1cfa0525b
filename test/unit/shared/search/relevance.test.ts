import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../../shared/search/query-syntax.js';
import {
  FIELD_WEIGHTS,
  idf,
  passageScore,
  recencyPrior,
  type WeightedTerm,
} from '../../../../shared/search/relevance.js';

const TOTAL = 10_000;
const term = (forms: string[], documents: number): WeightedTerm => ({
  forms: new Set(forms),
  idf: idf(documents, TOTAL),
});
const score = (text: string, terms: WeightedTerm[], kind: Parameters<typeof passageScore>[2] = 'assistant') =>
  passageScore(tokenize(text), terms, kind, 12).score;

describe('relevance of a line to a question (issue 33)', () => {
  it('weighs a rare word above a common one', () => {
    expect(idf(3, TOTAL)).toBeGreaterThan(5 * idf(4_000, TOTAL));
    const terms = [term(['deploy'], 4_000), term(['zephyrine'], 3)];
    expect(score('the zephyrine layer', terms)).toBeGreaterThan(score('deploy deploy deploy', terms));
  });

  it('puts a line with the whole question above one with a word of it', () => {
    const terms = [term(['flaky'], 40), term(['retry'], 200), term(['timeout'], 300)];
    expect(score('the flaky retry timeout again', terms)).toBeGreaterThan(score('raise the timeout', terms));
  });

  it("boosts the question's words standing together, and close", () => {
    const terms = [term(['retry'], 200), term(['timeout'], 300)];
    const together = score('a retry timeout in the gateway when the job runs at night', terms);
    const apart = score('a retry in the gateway when the job runs at night timeout', terms);
    expect(together).toBeGreaterThan(apart);
  });

  it("weighs the line's field: a prompt above assistant text above a tool's output", () => {
    const terms = [term(['kestrel'], 5)];
    expect(FIELD_WEIGHTS.prompt).toBeGreaterThan(FIELD_WEIGHTS.assistant);
    expect(score('kestrel ledger', terms, 'prompt')).toBeGreaterThan(score('kestrel ledger', terms, 'output'));
    expect(score('kestrel ledger', terms, 'error')).toBeGreaterThan(score('kestrel ledger', terms, 'assistant'));
  });

  it('counts a word in any of its forms, and says which terms the text holds', () => {
    const terms = [term(['retry', 'retried', 'retries'], 50), term(['zebra'], 2)];
    const result = passageScore(tokenize('it retried twice'), terms, 'assistant', 12);
    expect(result.present).toBe(0b01);
    expect(result.score).toBeGreaterThan(0);
  });

  it('prefers recent lines, mildly', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const today = recencyPrior('2026-06-01T00:00:00Z', now);
    const old = recencyPrior('2025-06-01T00:00:00Z', now);
    expect(today).toBeGreaterThan(old);
    expect(today).toBeLessThanOrEqual(1.1);
    expect(recencyPrior(null, now)).toBe(1);
  });
});
