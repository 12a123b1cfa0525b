/**
 * The words of a question that mean something, and how much of them a passage holds (issue 33).
 * Recall injects a passage only when it holds enough of the question's weight: rare words weigh
 * more (their weight comes from the index's statistics, `TermWeights`), stop words, question words
 * and chat filler are not counted, and a word matches its other forms and the words developers use
 * for the same thing, as search's question does (shared/search/question.ts, related-words.ts). This
 * is the threshold's own measure, apart from the search's ranking, so that it means the same
 * whatever ranks the candidates (project memories are not in the index). Pure.
 */
import { tokenize } from '../../shared/search/query-syntax.js';
import { isStopWord, stemOf } from '../../shared/search/question.js';
import { relatedWords } from '../../shared/search/related-words.js';

/** Words of a prompt beyond search's stop words that say nothing of its topic: chat filler. */
const CHAT_WORDS = new Set(
  `yourself lets let's thanks thank ok okay yes yeah sure hi hello hey still really maybe might must shall may want
  need like got make using go going try tried think see look new old good bad right well also back even much many
  via etc able two first next also time claude memd`
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
  /** The stems a text's word may have to hold the term: the word's, and its related words'. */
  stems: ReadonlySet<string>;
  weight: number;
}

/**
 * The weight of each term, from the index's statistics (rarer: heavier; 0 when the index holds
 * none of its words); 1 each without them. A term is its word and its related words.
 */
export type TermWeights = (terms: readonly (readonly string[])[]) => readonly number[];

function informative(word: string): boolean {
  return word.length >= MIN_TERM_CHARS && !isStopWord(word) && !CHAT_WORDS.has(word) && !/^\d+$/.test(word);
}

/** The question's informative words, once per stem, weighted, the heaviest MAX_QUESTION_TERMS of them. */
export function questionTerms(question: string, weights: TermWeights): QuestionTerm[] {
  const tokens = tokenize(question);
  const seen = new Set<string>();
  const asked: { word: string; words: string[] }[] = [];
  for (const [at, word] of tokens.entries()) {
    // The first form of each: `retry` and `retries` are one term.
    if (!informative(word) || seen.has(stemOf(word))) continue;
    seen.add(stemOf(word));
    asked.push({ word, words: [word, ...relatedWords(tokens, at)] });
  }
  if (asked.length === 0) return [];
  const weighed = weights(asked.map((term) => term.words));
  // A term of weight 0 is one no passage holds: it cannot tell passages apart.
  return asked
    .map((term, at) => ({ word: term.word, stems: new Set(term.words.map(stemOf)), weight: weighed[at] ?? 1 }))
    .filter((term) => term.weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, MAX_QUESTION_TERMS);
}

/** The part of the terms' weight the text holds, 0-1, and how many terms it holds. */
export function coverage(terms: readonly QuestionTerm[], text: string): { share: number; matched: number } {
  const total = terms.reduce((sum, term) => sum + term.weight, 0);
  if (total === 0) return { share: 0, matched: 0 };
  const stems = new Set(tokenize(text).map(stemOf));
  let held = 0;
  let matched = 0;
  for (const term of terms) {
    if (![...term.stems].some((stem) => stems.has(stem))) continue;
    held += term.weight;
    matched++;
  }
  return { share: held / total, matched };
}
