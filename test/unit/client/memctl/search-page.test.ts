import { describe, expect, it } from 'vitest';
import { shellWord } from '../../../../client/memctl/search-page.js';

describe("search page's shell words", () => {
  it('passes words the shell takes as they are, ASCII or not, and quotes the rest', () => {
    expect(shellWord('retry-test.ts')).toBe('retry-test.ts');
    expect(shellWord('caché')).toBe('caché');
    expect(shellWord('日本語')).toBe('日本語');
    expect(shellWord('two words')).toBe("'two words'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('$(rm -rf ~)')).toBe("'$(rm -rf ~)'");
  });
});
