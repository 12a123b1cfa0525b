import { describe, expect, it } from 'vitest';
import { hasQuerySyntax, questionOf, questionTerms, stemOf } from '../../../../shared/search/question.js';

describe('a query of plain words is a question (issue 33)', () => {
  it('tells FTS5 syntax from plain words', () => {
    for (const query of ['"a phrase"', 'a AND b', 'a OR b', 'a NOT b', 'NEAR(a b)', 'pre*', '^start', '(a b)', 'a + b'])
      expect(hasQuerySyntax(query), query).toBe(true);
    for (const query of [
      'how did we fix the flaky retry test?',
      'which session, and where?',
      'cart.js totals',
      'and or not',
    ])
      expect(hasQuerySyntax(query), query).toBe(false);
  });

  it('keeps a single word (an identifier, an error name) exact', () => {
    expect(questionOf('totals.js')).toBeNull();
    expect(questionOf('AssertionError')).toBeNull();
    expect(questionOf('retry timeout')).not.toBeNull();
  });

  it('leaves stop words and question words out, unless there is nothing else', () => {
    expect(questionOf('which session hit the flaky retry timeout?')?.terms.map((term) => term.token)).toEqual([
      'hit',
      'flaky',
      'retry',
      'timeout',
    ]);
    expect(questionTerms('what did we do')?.terms.map((term) => term.token)).toEqual(['what', 'did', 'we', 'do']);
  });

  it('keeps every word of an identifier or a path, stop words too, but not the pieces of a contraction', () => {
    const tokens = (question: string) => questionOf(question)?.terms.map((term) => term.token);
    expect(tokens('which session bumped burst to 40 for /v1/sessions')).toEqual([
      'bumped',
      'burst',
      '40',
      'v1',
      'sessions',
    ]);
    expect(tokens('which time-dependent spec did we stabilise?')).toEqual(['time', 'dependent', 'spec', 'stabilise']);
    expect(tokens("the api couldn't reach redis")).toEqual(['api', 'reach', 'redis']);
  });

  it("gives a word's forms one stem, and counts a word once", () => {
    for (const group of [
      ['retry', 'retries', 'retried', 'retrying'],
      ['fix', 'fixes', 'fixed', 'fixing'],
      ['test', 'tests', 'testing', 'tested'],
      ['run', 'running'],
      ['cache', 'caches', 'cached', 'caching'],
      ['pass', 'passes'],
    ])
      expect(new Set(group.map(stemOf)), group.join()).toHaveProperty('size', 1);
    expect(stemOf('status')).toBe('status');
    expect(stemOf('fixture')).not.toBe(stemOf('fix'));
    expect(questionOf('retry retries retried')?.terms).toHaveLength(1);
  });
});
