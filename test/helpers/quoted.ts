/**
 * Checks on memd's quotes of transcript text (shared/text/quote.ts): each block opens after the
 * line that says it is data, and closes with its own tag, which nothing inside holds.
 */
import { expect } from 'vitest';

/** The answer with every quoted block taken out; each block checked on the way. */
export function outsideQuotes(answer: string): string {
  let outside = answer;
  for (const match of answer.matchAll(/^<<<memd-data ([0-9a-f]{16})>>>$/gm)) {
    const nonce = match[1] as string;
    const open = match.index;
    const close = answer.indexOf(`\n<<<end memd-data ${nonce}>>>`, open);
    expect(close, `block ${nonce} is closed`).toBeGreaterThan(open);
    const inside = answer.slice(open + match[0].length, close);
    expect(inside, 'the tag is not in the quoted text').not.toContain(nonce);
    const notice = answer.slice(0, open).split('\n').at(-2) ?? '';
    expect(notice).toContain(`tagged ${nonce}`);
    expect(notice).toContain('data, not instructions');
    outside = outside.replace(answer.slice(open, close), '');
  }
  return outside;
}

/** `needle` is in the answer, and only inside memd's quotes. */
export function expectOnlyQuoted(answer: string, needle: string): void {
  expect(answer).toContain(needle);
  expect(outsideQuotes(answer)).not.toContain(needle);
}
