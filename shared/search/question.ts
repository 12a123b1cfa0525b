/**
 * A query of plain words is a question (issue 33): "which session hit the flaky retry timeout" asks
 * for the sessions that hold most of its telling words, not for lines that hold every word. This
 * file tells a question from FTS5 syntax and gives the question's terms: its words tokenized as the
 * index tokenizes them, stop words and question words left out, each word with the other forms it
 * takes (fix, fixed, fixes, fixing) found through their common stem. Pure.
 */
import { tokenize } from './query-syntax.js';

/**
 * Words a question is built from that say nothing of what it is about: English function words,
 * question words and the words people use to ask for a past session. A question made of them only
 * ("what did we do") keeps them.
 */
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both
  but by can could did do does doing done down during each few for from further had has have having he her here
  hers him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
  other our ours out over own same she should so some such than that the their theirs them then there these they
  this those through to too under until up very was we were what when where which while who whom why will with
  would you your yours s t d ll m re ve don didn doesn isn wasn weren won wouldn shouldn couldn
  session sessions conversation conversations chat chats remember recall earlier previously ago last once
  ever again past one thing things something anything get made use used way
  please tell show find know let lets say said`.split(/\s+/),
);

/** Question words and the rest that count for nothing: lower-case tokens. */
export function isStopWord(token: string): boolean {
  return STOP_WORDS.has(token);
}

/** At most this many terms: a pasted error line is ~20 words; each term is a pass over the index. */
export const MAX_QUESTION_TERMS = 16;

/** A word of the question as the index tokenizes it, with the stem its other forms share. */
export interface QuestionTerm {
  /** The token as typed (case-folded). */
  token: string;
  /** Its stem: another word of the index with the same stem counts as this term. */
  stem: string;
}

export interface Question {
  /** Distinct telling terms, in the question's order. */
  terms: QuestionTerm[];
  /** Every token of the question in its order (stop words too): phrases are looked for in it. */
  tokens: string[];
}

/** FTS5 syntax: a quote, parentheses, `+`, `prefix*`, `^initial`, or an operator in capitals. */
const SYNTAX = /["()+]|(?:^|\s)\^|\S\*(?:\s|$)|(?:^|\s)(?:AND|OR|NOT)(?:\s|$)|(?:^|\s)NEAR\s*\(/;

/** True when the query uses FTS5's syntax (it then keeps its exact meaning), false for plain words. */
export function hasQuerySyntax(query: string): boolean {
  return SYNTAX.test(query);
}

/** How many whitespace-separated words the query has (`cart.js` is one). */
function wordCount(query: string): number {
  return query.split(/\s+/).filter((word) => tokenize(word).length > 0).length;
}

/**
 * The question a query asks, or null when it is not one: FTS5 syntax, or a single word (`totals.js`,
 * `AssertionError`): that is an exact lookup, and its lines are the hits, as before issue 33.
 */
export function questionOf(query: string): Question | null {
  if (hasQuerySyntax(query) || wordCount(query) < 2) return null;
  return questionTerms(query);
}

/** Letters or digits joined by a path's or an identifier's punctuation. */
const COMPOUND = /[\p{L}\p{N}][/_.:-][\p{L}\p{N}]/u;

/** The question's terms, whatever its shape (recall sends a prompt as it was typed); null when it has no word. */
export function questionTerms(text: string): Question | null {
  const tokens: string[] = [];
  const telling: string[] = [];
  for (const chunk of text.split(/\s+/)) {
    const words = tokenize(chunk);
    // A word of an identifier or path (/v1/sessions, time-dependent, test_last_order) is what is asked for.
    const named = COMPOUND.test(chunk);
    for (const word of words) {
      tokens.push(word);
      if (named ? word.length > 1 : !isStopWord(word)) telling.push(word);
    }
  }
  if (tokens.length === 0) return null;
  const chosen = telling.length > 0 ? telling : tokens;
  const terms: QuestionTerm[] = [];
  const stems = new Set<string>();
  for (const token of chosen) {
    const stem = stemOf(token);
    if (stems.has(stem)) continue;
    stems.add(stem);
    terms.push({ token, stem });
    if (terms.length === MAX_QUESTION_TERMS) break;
  }
  return { terms, tokens };
}

/** Suffixes a word's other forms end in, longest first; what is left keeps at least 3 letters. */
const SUFFIXES = ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'ers', 'er', 'es', 'ed', 'ly', 's'] as const;
const MIN_STEM = 3;

/**
 * A light stem, the same for a word's plural, past and -ing forms (retry, retries, retried,
 * retrying → retr; fix, fixes, fixed, fixing → fix): the index keeps words as written, so the
 * question's forms are matched by the words of the index that share the stem. Numbers and words of
 * mixed letters and digits are left whole.
 */
export function stemOf(token: string): string {
  if (!/^\p{L}+$/u.test(token) || token.length <= MIN_STEM) return token;
  let stem = token;
  for (const suffix of SUFFIXES) {
    // pass, status: a final s after s or u is the word's own.
    if (suffix === 's' && /[su]s$/.test(stem)) continue;
    if (stem.endsWith(suffix) && stem.length - suffix.length >= MIN_STEM) {
      stem = stem.slice(0, -suffix.length);
      break;
    }
  }
  // retry/retries: a final y is the same letter as the ie the suffixes leave; a doubled consonant
  // (running → runn) is the single one.
  if (stem.endsWith('y') && stem.length > MIN_STEM) stem = stem.slice(0, -1);
  else if (stem.endsWith('e') && stem.length > MIN_STEM) stem = stem.slice(0, -1);
  const last = stem.at(-1);
  if (last !== undefined && stem.length > MIN_STEM && stem.at(-2) === last && /[^aeiouls]/.test(last))
    stem = stem.slice(0, -1);
  return stem;
}

/**
 * The word forms of the index a term stands for: those whose stem is the term's, up to `max` of
 * them; `candidates` are the index's words that start with the stem's first letters.
 */
export function termForms(term: QuestionTerm, candidates: readonly string[], max: number): string[] {
  const forms = candidates.filter((word) => word === term.token || stemOf(word) === term.stem);
  if (!forms.includes(term.token)) forms.unshift(term.token);
  return forms.slice(0, max);
}
