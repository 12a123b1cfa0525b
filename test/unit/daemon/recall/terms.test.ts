import { describe, expect, it } from 'vitest';
import { coverage, questionTerms } from '../../../../daemon/recall/terms.js';

const even = (terms: readonly (readonly string[])[]) => terms.map(() => 1);

describe('questionTerms', () => {
  it('keeps the words that mean something, once per stem', () => {
    const terms = questionTerms('How did we fix the flaky retry test? The retries kept timing out.', even);
    expect(terms.map((term) => term.word).sort()).toEqual(['fix', 'flaky', 'kept', 'retry', 'test', 'timing'].sort());
  });

  it('weighs rarer words more, and drops words no passage holds (weight 0)', () => {
    const weights = (terms: readonly (readonly string[])[]) =>
      terms.map(([word]) => ({ stripe: 5, webhook: 3, rotation: 0 })[word ?? ''] ?? 1);
    const terms = questionTerms('which project used the Stripe webhook secret rotation', weights);
    expect(terms.map((term) => term.word)).toEqual(['stripe', 'webhook', 'project', 'secret']);
  });

  it('finds nothing to ask in a prompt of filler', () => {
    expect(questionTerms('yes, please go on', even)).toEqual([]);
  });
});

describe('coverage', () => {
  it("is the share of the question's weight a text holds", () => {
    const weights = (terms: readonly (readonly string[])[]) => terms.map(([word]) => (word === 'flaky' ? 3 : 1));
    const terms = questionTerms('flaky retry test', weights);
    expect(coverage(terms, 'the Flaky test again')).toEqual({ share: 0.8, matched: 2 });
    expect(coverage(terms, 'retried the tests')).toEqual({ share: 0.4, matched: 2 });
    expect(coverage(terms, 'nothing here')).toEqual({ share: 0, matched: 0 });
  });
});

describe('related words', () => {
  it('count a text that holds the question in other words: missing as ModuleNotFoundError', () => {
    const terms = questionTerms('which worker was missing the wombatlib dependency', even);
    expect(coverage(terms, "ModuleNotFoundError: No module named 'wombatlib'").matched).toBe(2);
  });

  it('are weighed with the word they stand for', () => {
    const asked: (readonly string[])[] = [];
    questionTerms('the flaky spec', (terms) => {
      asked.push(...terms);
      return terms.map(() => 1);
    });
    expect(asked.find(([word]) => word === 'spec')).toContain('test');
  });
});
