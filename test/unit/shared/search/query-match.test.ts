import { describe, expect, it } from 'vitest';
import { markedTerms, matches } from '../../../../shared/search/query-match.js';
import { parseQuery, tokenize } from '../../../../shared/search/query-syntax.js';

const matchesText = (query: string, text: string) => matches(parseQuery(query), tokenize(text));

describe('matches', () => {
  it('decides phrases, prefixes, ^, NEAR and NOT on the tokens', () => {
    const text = 'The quick brown fox jumps over the lazy dog';
    expect(matchesText('"quick brown"', text)).toBe(true);
    expect(matchesText('"brown quick"', text)).toBe(false);
    expect(matchesText('"quick bro"*', text)).toBe(true);
    expect(matchesText('^the quick', text)).toBe(true);
    expect(matchesText('^quick', text)).toBe(false);
    expect(matchesText('NEAR(quick fox, 1)', text)).toBe(true);
    expect(matchesText('NEAR(quick fox, 0)', text)).toBe(false);
    expect(matchesText('NEAR(dog quick)', text)).toBe(true);
    expect(matchesText('NEAR("lazy dog" quick, 5)', text)).toBe(true);
    expect(matchesText('NEAR("lazy dog" quick, 4)', text)).toBe(false);
    expect(matchesText('fox NOT "lazy cat"', text)).toBe(true);
    expect(matchesText('fox NOT "lazy dog"', text)).toBe(false);
    expect(matchesText('"fox jumped" OR dog', text)).toBe(true);
    expect(matchesText('(cat OR fox) AND "over the"', text)).toBe(true);
  });

  it('marks the words the query looks for, not those under NOT', () => {
    expect(markedTerms(parseQuery('"quick brown" fo* NOT lazy'))).toEqual(['quick', 'brown', 'fo*']);
  });
});
