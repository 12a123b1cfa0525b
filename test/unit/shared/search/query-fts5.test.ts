import { describe, expect, it } from 'vitest';
import { fts5Query, hasAlternatives, isExact } from '../../../../shared/search/query-fts5.js';
import { parseQuery } from '../../../../shared/search/query-syntax.js';

describe('fts5Query', () => {
  it('gives FTS5 the words of each phrase, exact when no positions are needed', () => {
    expect(fts5Query(parseQuery('a b*'))).toBe('("a" AND "b"*)');
    expect(isExact(parseQuery('a OR b NOT c'))).toBe(true);
    const phrased = parseQuery('"a b" OR c');
    expect(fts5Query(phrased)).toBe('(("a" AND "b") OR "c")');
    expect(isExact(phrased)).toBe(false);
    // A NOT of a phrase is decided on the text: FTS5 would drop rows with its words apart.
    expect(fts5Query(parseQuery('a NOT "b c"'))).toBe('"a"');
    expect(fts5Query(parseQuery('a NOT b'))).toBe('("a" NOT "b")');
    expect(fts5Query(parseQuery('NEAR(a b)'))).toBe('("a" AND "b")');
    expect(fts5Query(parseQuery('a ---'))).toBeNull();
    expect(fts5Query(parseQuery('a OR ---'))).toBe('"a"');
  });

  it("ORs a prefix's words when the index gives them, and leaves it to FTS5 when it does not", () => {
    const words: Record<string, string[] | null> = { rea: ['read', 'readme'], tes: ['test'], zz: [], x: null };
    const expand = (prefix: string) => words[prefix] ?? null;
    expect(fts5Query(parseQuery('rea* "run tes"*'), expand)).toBe('(("read" OR "readme") AND ("run" AND "test"))');
    expect(fts5Query(parseQuery('zz*'), expand)).toBe('"zz"');
    expect(fts5Query(parseQuery('x*'), expand)).toBe('"x"*');
  });

  it('ranks by relevance only where rows may match different words', () => {
    expect(hasAlternatives(parseQuery('a b "c d"'))).toBe(false);
    expect(hasAlternatives(parseQuery('a (b OR c)'))).toBe(true);
    expect(hasAlternatives(parseQuery('a NOT (b OR c)'))).toBe(false);
  });
});
