/**
 * How well a line answers a question (issue 33): BM25 over the question's terms (each term the word
 * forms that share its stem, question.ts), with the line's kind as a field weight, a boost for the
 * question's words standing together (a phrase) or near each other, and a mild prior for recent
 * lines. The index gives which lines hold a term (detail=none); the line's text, read back for its
 * snippet, gives how often and where. Pure.
 */
import type { SearchKind } from '../protocol/search.js';

/** BM25's usual constants: term frequency saturates (k1), length normalizes halfway-plus (b). */
const K1 = 1.2;
const B = 0.75;
/** Two of the question's words this close (tokens apart) in a line read as one phrase of it. */
const PHRASE_GAP = 2;
/** A phrase of two question words adds this share of their mean weight: "retry timeout" over "retry … timeout". */
const PHRASE_WEIGHT = 0.5;
/** A line holding its terms close together adds up to this share of their weight. */
const PROXIMITY_WEIGHT = 0.25;
/**
 * Where a word is says how much it tells: a prompt is what the session was about, an error line
 * is specific, a command or path is what was done; the assistant's prose is the baseline, its
 * thinking and a tool's output (a file's head, a listing) tell least. memd's own traffic repeats
 * what other lines hold.
 */
export const FIELD_WEIGHTS: Readonly<Record<SearchKind, number>> = {
  prompt: 1.5,
  error: 1.4,
  tool: 1.25,
  write: 1.15,
  assistant: 1,
  output: 0.8,
  thinking: 0.7,
  memd: 0.5,
};
/** The recency prior: a line written now weighs this much more than an old one (ties go to the newer). */
const PRIOR_WEIGHT = 0.1;
/** A line this many days old gets half the prior of one written now. */
const PRIOR_HALF_DAYS = 30;
const DAY_MS = 86_400_000;

/** A term of the question as the ranking sees it: its word forms and its weight. */
export interface WeightedTerm {
  forms: ReadonlySet<string>;
  /** BM25's inverse document frequency over the index's lines. */
  idf: number;
}

/** BM25's idf of a term held by `df` of `total` lines: rare words weigh more, a word in most lines next to nothing. */
export function idf(df: number, total: number): number {
  const n = Math.max(total, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** A line scored on the terms it holds (a bit per term, as the index says), each once, at the average length. */
export function termsScore(present: number, terms: readonly WeightedTerm[], kind: SearchKind): number {
  return weightOf(present, terms) * FIELD_WEIGHTS[kind];
}

/** The sum of the weights of the terms whose bit is set. */
export function weightOf(present: number, terms: readonly WeightedTerm[]): number {
  let sum = 0;
  for (const [at, term] of terms.entries()) if ((present >> at) & 1) sum += term.idf;
  return sum;
}

export interface PassageScore {
  score: number;
  /** A bit per term the text holds. */
  present: number;
}

/**
 * A line's text scored for the question: BM25 with the text's term frequencies and length (in
 * tokens, against the index's average `averageLength`), plus the phrase and proximity boosts, times
 * the kind's field weight. `tokens`: the text as tokenize() splits it.
 */
export function passageScore(
  tokens: readonly string[],
  terms: readonly WeightedTerm[],
  kind: SearchKind,
  averageLength: number,
): PassageScore {
  const counts = new Array<number>(terms.length).fill(0);
  /** Each token's term index, -1 for a word of no term. */
  const termAt = tokens.map((token) => {
    const at = terms.findIndex((term) => term.forms.has(token));
    if (at !== -1) counts[at] = (counts[at] ?? 0) + 1;
    return at;
  });
  const norm = 1 - B + (B * tokens.length) / Math.max(1, averageLength);
  let score = 0;
  let present = 0;
  for (const [at, term] of terms.entries()) {
    const tf = counts[at] ?? 0;
    if (tf === 0) continue;
    present |= 1 << at;
    score += (term.idf * (tf * (K1 + 1))) / (tf + K1 * norm);
  }
  score += phraseBoost(termAt, terms) + proximityBoost(termAt, terms, present);
  return { score: score * FIELD_WEIGHTS[kind], present };
}

/** Each pair of the question's terms next to each other in its order (within PHRASE_GAP) that the text has so. */
function phraseBoost(termAt: readonly number[], terms: readonly WeightedTerm[]): number {
  const seen = new Set<number>();
  let boost = 0;
  for (const [position, at] of termAt.entries()) {
    if (at === -1 || seen.has(at)) continue;
    const next = at + 1;
    for (let ahead = position + 1; ahead <= position + PHRASE_GAP + 1 && ahead < termAt.length; ahead++) {
      if (termAt[ahead] !== next) continue;
      seen.add(at);
      boost += PHRASE_WEIGHT * (((terms[at]?.idf ?? 0) + (terms[next]?.idf ?? 0)) / 2);
      break;
    }
  }
  return boost;
}

/** The smallest run of tokens holding every term the text has: the shorter, the more of their weight. */
function proximityBoost(termAt: readonly number[], terms: readonly WeightedTerm[], present: number): number {
  const wanted = bitCount(present);
  if (wanted < 2) return 0;
  const inWindow = new Map<number, number>();
  let shortest = Number.POSITIVE_INFINITY;
  let start = 0;
  for (const [end, at] of termAt.entries()) {
    if (at === -1) continue;
    inWindow.set(at, (inWindow.get(at) ?? 0) + 1);
    while (inWindow.size === wanted) {
      shortest = Math.min(shortest, end - start + 1);
      const first = termAt[start++] ?? -1;
      if (first === -1) continue;
      const left = (inWindow.get(first) ?? 1) - 1;
      if (left === 0) inWindow.delete(first);
      else inWindow.set(first, left);
    }
  }
  return PROXIMITY_WEIGHT * weightOf(present, terms) * Math.min(1, wanted / shortest);
}

export function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits; rest !== 0; rest &= rest - 1) count++;
  return count;
}

/** The recency prior, a factor a little over 1: `timestamp` ISO or null (old). */
export function recencyPrior(timestamp: string | null, now: number): number {
  const at = timestamp === null ? Number.NaN : Date.parse(timestamp);
  if (Number.isNaN(at)) return 1;
  const days = Math.max(0, now - at) / DAY_MS;
  return 1 + PRIOR_WEIGHT / (1 + days / PRIOR_HALF_DAYS);
}
