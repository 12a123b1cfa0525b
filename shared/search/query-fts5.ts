/**
 * A parsed query (query-syntax.ts) as the FTS5 query the index can answer. The index keeps no token
 * positions, so this query finds every row the user's query can match, exactly those when `isExact`;
 * the rest are decided on their text by query-match.ts. Pure.
 */
import type { Phrase, QueryNode } from './query-syntax.js';

/** True when FTS5 (without positions) decides the node alone: no phrase of two words, no NEAR, no `^`. */
export function isExact(node: QueryNode): boolean {
  if (node.type === 'phrase') return node.tokens.length <= 1 && !node.initial;
  if (node.type === 'near') return false;
  return isExact(node.left) && isExact(node.right);
}

const quoted = (token: string) => `"${token}"`;

/** The index's words that start with a prefix, when few enough to be ORed (null: let FTS5 expand it). */
export type PrefixTerms = (prefix: string) => readonly string[] | null;

function prefixFts(token: string, expand: PrefixTerms | undefined): string {
  const terms = expand?.(token);
  if (terms === undefined || terms === null) return `${quoted(token)}*`;
  // No word of the index has the prefix: a word no text holds (the token itself, as typed).
  if (terms.length === 0) return quoted(token);
  return terms.length === 1 ? quoted(terms[0] as string) : `(${terms.map(quoted).join(' OR ')})`;
}

function phraseFts(phrase: Phrase, expand: PrefixTerms | undefined): string | null {
  if (phrase.tokens.length === 0) return null;
  const last = phrase.tokens.length - 1;
  const parts = phrase.tokens.map((token, at) =>
    at === last && phrase.prefix ? prefixFts(token, expand) : quoted(token),
  );
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`;
}

/** True when rows may match different words of the query (an OR), so that relevance can tell them apart. */
export function hasAlternatives(node: QueryNode): boolean {
  if (node.type === 'or') return true;
  if (node.type === 'phrase' || node.type === 'near') return false;
  return hasAlternatives(node.left) || (node.type === 'and' && hasAlternatives(node.right));
}

/**
 * An FTS5 query without positions that matches at least every row the node matches (exactly those
 * when `isExact`); null when nothing can match (a phrase without words). A NOT whose right side
 * needs positions is left to `matches`: FTS5 would drop rows that have its words apart. A prefix is
 * the OR of the words `expand` gives for it: FTS5 builds a prefix's whole list of rows before
 * giving the first, where an OR of words is merged as far as it is read.
 */
export function fts5Query(node: QueryNode, expand?: PrefixTerms): string | null {
  const recurse = (current: QueryNode): string | null => {
    switch (current.type) {
      case 'phrase':
        return phraseFts(current, expand);
      case 'near': {
        const parts = current.phrases.map((phrase) => phraseFts(phrase, expand));
        return parts.some((part) => part === null) ? null : `(${parts.join(' AND ')})`;
      }
      case 'and': {
        const left = recurse(current.left);
        const right = recurse(current.right);
        return left === null || right === null ? null : `(${left} AND ${right})`;
      }
      case 'or': {
        const left = recurse(current.left);
        const right = recurse(current.right);
        return left === null ? right : right === null ? left : `(${left} OR ${right})`;
      }
      case 'not': {
        const left = recurse(current.left);
        const right = isExact(current.right) ? recurse(current.right) : null;
        return left === null || right === null ? left : `(${left} NOT ${right})`;
      }
    }
  };
  return recurse(node);
}
