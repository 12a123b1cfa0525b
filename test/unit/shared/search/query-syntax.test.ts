import { describe, expect, it } from 'vitest';
import {
  parseQuery,
  QUERY_LIMITS,
  QueryLimitError,
  QuerySyntaxError,
  tokenize,
} from '../../../../shared/search/query-syntax.js';

describe('tokenize', () => {
  it("splits as FTS5's unicode61 does: letters and numbers, case and diacritics folded, underscores and punctuation separate", () => {
    expect(tokenize('Café_au-lait src/App.ts v2 ÉTÉ naïve')).toEqual([
      'cafe',
      'au',
      'lait',
      'src',
      'app',
      'ts',
      'v2',
      'ete',
      'naive',
    ]);
    expect(tokenize('  --- ')).toEqual([]);
  });
});

describe('parseQuery', () => {
  it('reads words, phrases, prefixes, operators in precedence, NEAR and parentheses', () => {
    expect(parseQuery('a b OR c NOT d')).toEqual({
      type: 'or',
      left: { type: 'and', left: phrase(['a']), right: phrase(['b']) },
      right: { type: 'not', left: phrase(['c']), right: phrase(['d']) },
    });
    expect(parseQuery('"Hello, World"* ^start')).toEqual({
      type: 'and',
      left: { ...phrase(['hello', 'world']), prefix: true },
      right: { ...phrase(['start']), initial: true },
    });
    expect(parseQuery('NEAR(a "b c", 3)')).toEqual({
      type: 'near',
      phrases: [phrase(['a']), phrase(['b', 'c'])],
      distance: 3,
    });
    expect(parseQuery('"a" + "b"')).toEqual(phrase(['a', 'b']));
    expect(parseQuery('"say ""hi"""')).toEqual(phrase(['say', 'hi']));
    expect(parseQuery('src/app.ts --force')).toEqual({
      type: 'and',
      left: phrase(['src', 'app', 'ts']),
      right: phrase(['force']),
    });
    // Lower-case operators are words, as in FTS5.
    expect(parseQuery('this or that')).toEqual({
      type: 'and',
      left: { type: 'and', left: phrase(['this']), right: phrase(['or']) },
      right: phrase(['that']),
    });
  });

  it('names the position where a query breaks', () => {
    const cases: [string, number, RegExp][] = [
      ['"open', 0, /unterminated string/],
      ['a "open', 2, /unterminated string/],
      ['NOT', 0, /expected/],
      ['a AND', 5, /at the end/],
      ['(open', 5, /\) expected/],
      ['a OR (b', 7, /\) expected/],
      ['a ) b', 2, /before "\)"/],
      ['NEAR(a b, x)', 10, /distance/],
      ['', 0, /empty/],
      ['--- ***', 0, /no words/],
    ];
    for (const [query, position, message] of cases) {
      const error = (() => {
        try {
          parseQuery(query);
        } catch (thrown) {
          return thrown;
        }
        return null;
      })();
      expect(error, query).toBeInstanceOf(QuerySyntaxError);
      expect((error as QuerySyntaxError).position, query).toBe(position);
      expect((error as QuerySyntaxError).message, query).toMatch(message);
    }
  });
});

describe('query limits (issue 27)', () => {
  const limitOf = (query: string) => {
    try {
      parseQuery(query);
    } catch (error) {
      if (error instanceof QueryLimitError) return { limit: error.limit, max: error.max, message: error.message };
      throw error;
    }
    return null;
  };

  it('refuses the query that held the search worker for a minute: 320 prefixes in one NEAR', () => {
    const hostile = `NEAR(${Array(320).fill('a*').join(' ')}, 999)`.slice(0, 1_000);
    expect(limitOf(hostile)).toEqual({
      limit: 'prefixes',
      max: QUERY_LIMITS.prefixes,
      message: 'the query has more than 8 prefix words (word*)',
    });
  });

  it('names the limit a query passes: words, prefixes, phrases in a NEAR, OR alternatives', () => {
    expect(limitOf(`NEAR(${Array(9).fill('a').join(' ')})`)).toEqual({
      limit: 'nearPhrases',
      max: 8,
      message: 'the query has more than 8 phrases in one NEAR',
    });
    expect(limitOf(Array(9).fill('ab*').join(' '))).toMatchObject({ limit: 'prefixes', max: 8 });
    expect(limitOf(Array(450).fill('a*').join(' ').slice(0, 1_000))).toMatchObject({ limit: 'prefixes' });
    expect(limitOf(`"${Array(65).fill('w').join(' ')}"`)).toEqual({
      limit: 'words',
      max: 64,
      message: 'the query has more than 64 words',
    });
    expect(limitOf(Array(33).fill('t').join(' OR '))).toEqual({
      limit: 'orBranches',
      max: 32,
      message: 'the query has more than 32 OR alternatives',
    });
  });

  it('lets every query a person types through', () => {
    for (const query of [
      'invoice discount',
      '"TypeError: Cannot read properties of undefined (reading \'map\')" src/app.ts',
      'comp* test* fail* OR error*',
      'NEAR(invoice "rounding error" cents, 5) NOT draft',
      '(npm OR pnpm OR yarn OR bun) install --force',
      Array(8).fill('ab*').join(' '),
      Array(32).fill('t').join(' OR '),
      `NEAR(${Array(8).fill('a').join(' ')})`,
    ]) {
      expect(limitOf(query), query).toBeNull();
    }
  });
});

function phrase(tokens: string[]) {
  return { type: 'phrase', tokens, prefix: false, initial: false };
}
