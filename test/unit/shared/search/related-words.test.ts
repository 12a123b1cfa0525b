import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../../shared/search/query-syntax.js';
import { stemOf } from '../../../../shared/search/question.js';
import { relatedWords } from '../../../../shared/search/related-words.js';

/** The related words of `word` as it stands in `question`. */
const related = (question: string, word: string) => {
  const tokens = tokenize(question);
  return relatedWords(tokens, tokens.indexOf(word));
};

describe('relatedWords (issue 33)', () => {
  it('gives an error its names: missing finds ModuleNotFoundError, reach finds ECONNREFUSED', () => {
    expect(related('which service was missing the tenacity dependency', 'missing')).toContain('modulenotfounderror');
    expect(related("couldn't reach postgres", 'reach')).toContain('econnrefused');
    expect(related('the flaky refund spec', 'spec')).toContain('test');
  });

  it('takes a word in any of its forms, and never gives back its own', () => {
    expect(related('the tests that flaked', 'flaked')).toContain('intermittent');
    expect(related('the tests that flaked', 'tests')).not.toContain('test');
    for (const word of related('the flaky spec', 'flaky')) expect(stemOf(word)).not.toBe(stemOf('flaky'));
  });

  it('reads a phrase as one thing: "rate limit" is a throttle, "limit" alone is not', () => {
    expect(related('Stripe was rate limiting us', 'rate')).toEqual(expect.arrayContaining(['throttled', '429']));
    expect(related('raise the memory limit', 'limit')).toEqual([]);
    expect(related('the export timed out', 'timed')).toContain('timeout');
  });

  it('leaves a word of no group alone', () => {
    expect(related('the quokka ledger', 'quokka')).toEqual([]);
  });
});
