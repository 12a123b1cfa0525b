/**
 * The words of a question that mean something, and how much of them a passage holds (issue 33).
 * Recall injects a passage only when it holds enough of the question's weight: rare words weigh
 * more (their weight comes from the index's statistics, `TermWeights`), stop words and question
 * words are not counted, and a word matches its inflections (`fixed`, `fixes` and `fix`). This is
 * the threshold's own measure, apart from the search's ranking, so that it means the same whatever
 * ranks the candidates. Pure.
 */
import { tokenize } from '../../shared/search/query-syntax.js';

/** Words that say nothing of a topic: English function words, question words, and chat filler. */
const STOP_WORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by
  can could did do does doing done down during each few for from further had has have having he her here hers him his
  how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over
  own same she should so some such than that the their them then there these they this those through to too under until
  up very was we were what when where which while who whom why will with would you your yours yourself let lets let's
  please thanks thank ok okay yes yeah sure hi hello hey again still really maybe might must shall may want need like
  get got make made use used using go going try tried know think see look way thing things something anything
  one two time last first next new old good bad right well also back even much many via etc able
  session sessions claude memd earlier before previously ago remember recall past`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/** Shorter words are mostly noise (`ts`, `fn`); numbers alone name nothing. */
const MIN_TERM_CHARS = 3;
/** More terms than this say no more: the rarest (heaviest) are kept. */
export const MAX_QUESTION_TERMS = 16;

export interface QuestionTerm {
  /** The word as the index has it (lower case, accents folded). */
  word: string;
  /** Its stem: what its inflections share. */
  stem: string;
  weight: number;
}

/** The weight of each word, from the index's statistics (rarer: heavier); 1 each without them. */
export type TermWeights = (words: readonly string[]) => readonly number[];

/** `fixes`, `fixed`, `fixing` → `fix`, `retries` → `retry`; short words stay whole. A light suffix strip, not a stemmer. */
export function stemOf(word: string): string {
  const undouble = (stem: string) => (/([b-df-hj-np-tv-z])\1$/.test(stem) ? stem.slice(0, -1) : stem);
  if (word.length >= 6 && /i(?:es|ed)$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length >= 6 && word.endsWith('ing')) return undouble(word.slice(0, -3));
  if (word.length >= 5 && word.endsWith('ed')) return undouble(word.slice(0, -2));
  if (word.length >= 5 && /(?:x|ch|sh|ss|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length >= 4 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function informative(word: string): boolean {
  return word.length >= MIN_TERM_CHARS && !STOP_WORDS.has(word) && !/^\d+$/.test(word);
}

/** The question's informative words, once each, weighted, the heaviest MAX_QUESTION_TERMS of them. */
export function questionTerms(question: string, weights: TermWeights): QuestionTerm[] {
  const words = [...new Set(tokenize(question).filter(informative))];
  if (words.length === 0) return [];
  const weighed = weights(words);
  // A word of weight 0 is one no passage holds (terms.ts's weights): it cannot tell passages apart.
  const terms = words
    .map((word, at) => ({ word, stem: stemOf(word), weight: weighed[at] ?? 1 }))
    .filter((term) => term.weight > 0);
  // The first stem of each: `retry` and `retries` are one term.
  const seen = new Set<string>();
  const once = terms.filter((term) => !seen.has(term.stem) && seen.add(term.stem));
  return once.sort((a, b) => b.weight - a.weight).slice(0, MAX_QUESTION_TERMS);
}

/** The part of the terms' weight the text holds, 0-1, and how many terms it holds. */
export function coverage(terms: readonly QuestionTerm[], text: string): { share: number; matched: number } {
  const total = terms.reduce((sum, term) => sum + term.weight, 0);
  if (total === 0) return { share: 0, matched: 0 };
  const stems = new Set(tokenize(text).map(stemOf));
  let held = 0;
  let matched = 0;
  for (const term of terms) {
    if (!stems.has(term.stem)) continue;
    held += term.weight;
    matched++;
  }
  return { share: held / total, matched };
}
