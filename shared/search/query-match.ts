/**
 * A parsed query (query-syntax.ts) decided on the tokens of one text: phrases, prefixes, `^` and
 * NEAR, which the index without positions cannot check (query-fts5.ts gives the candidates), and
 * the words a hit's snippet marks. Pure.
 */
import type { Phrase, QueryNode } from './query-syntax.js';

/** Where the phrase starts in the tokens, each place. */
function starts(phrase: Phrase, tokens: readonly string[]): number[] {
  const found: number[] = [];
  const n = phrase.tokens.length;
  if (n === 0) return found;
  const last = n - 1;
  const limit = phrase.initial ? Math.min(0, tokens.length - n) : tokens.length - n;
  for (let at = 0; at <= limit; at++) {
    let ok = true;
    for (let k = 0; k < n && ok; k++) {
      const token = tokens[at + k] as string;
      const want = phrase.tokens[k] as string;
      ok = k === last && phrase.prefix ? token.startsWith(want) : token === want;
    }
    if (ok) found.push(at);
  }
  return found;
}

/** NEAR: some place of each phrase, all within `distance` tokens between them. */
function near(phrases: readonly Phrase[], distance: number, tokens: readonly string[]): boolean {
  const places = phrases.map((phrase) => starts(phrase, tokens));
  if (places.some((list) => list.length === 0)) return false;
  const words = phrases.reduce((sum, phrase) => sum + phrase.tokens.length, 0);
  // The smallest window whose leftmost phrase starts at each place: every other phrase at its
  // first place from there (a later one only widens the window).
  for (const [index, list] of places.entries()) {
    for (const start of list) {
      let end = start + (phrases[index] as Phrase).tokens.length;
      let ok = true;
      for (const [other, otherList] of places.entries()) {
        if (other === index) continue;
        const place = otherList.find((candidate) => candidate >= start);
        if (place === undefined) {
          ok = false;
          break;
        }
        end = Math.max(end, place + (phrases[other] as Phrase).tokens.length);
      }
      if (ok && end - start - words <= distance) return true;
    }
  }
  return false;
}

/** Whether a text, as its tokens, matches the query. */
export function matches(node: QueryNode, tokens: readonly string[]): boolean {
  switch (node.type) {
    case 'phrase':
      return starts(node, tokens).length > 0;
    case 'near':
      return near(node.phrases, node.distance, tokens);
    case 'and':
      return matches(node.left, tokens) && matches(node.right, tokens);
    case 'or':
      return matches(node.left, tokens) || matches(node.right, tokens);
    case 'not':
      return matches(node.left, tokens) && !matches(node.right, tokens);
  }
}

/** The words a hit's snippet marks: those the query looks for (not under NOT); a prefix keeps its `*`. */
export function markedTerms(node: QueryNode): string[] {
  const terms = new Set<string>();
  const walk = (current: QueryNode) => {
    if (current.type === 'phrase') {
      current.tokens.forEach((token, at) =>
        terms.add(at === current.tokens.length - 1 && current.prefix ? `${token}*` : token),
      );
    } else if (current.type === 'near') {
      current.phrases.forEach(walk);
    } else {
      walk(current.left);
      if (current.type !== 'not') walk(current.right);
    }
  };
  walk(node);
  return [...terms];
}
