export interface AskedQuestion {
  text: string;
  answers: string[];
  shape: string;
}

export interface AskResult<Q extends AskedQuestion = AskedQuestion> {
  question: Q;
  /** The sessions of the hits, each once, in the order of its first hit. */
  sessions: string[];
  /** 1-based place of the first answer session; null when none was found. */
  rank: number | null;
  ms: number;
  /** memd's refusal (a query it could not parse); null when it answered. */
  error: string | null;
}

export interface RecallRates {
  questions: number;
  hit1: number;
  recall5: number;
  mrr: number;
  /** Questions with at least one hit. */
  found: number;
  refused: number;
}

export const RECALL_LIMIT: number;
export function sessionsOf(hits: readonly { sessionId: string }[]): string[];
export function askAll<Q extends AskedQuestion>(
  searchQuery: (params: { query: string; limit: number }) => Promise<{ hits: readonly { sessionId: string }[] }>,
  questions: readonly Q[],
  options?: { limit?: number },
): Promise<AskResult<Q>[]>;
export function percentile(values: readonly number[], p: number): number;
export function scoreRecall(
  results: readonly AskResult[],
): RecallRates & { p50Ms: number; p99Ms: number; byShape: Record<string, RecallRates> };

export const QUESTION_STOP_WORDS: ReadonlySet<string>;
export function wordsOf(text: string): string[];
export function contentWords(text: string): string[];
export function orQuery(text: string): string;
