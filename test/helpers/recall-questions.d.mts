import type { RecallSession } from './recall-corpus.mjs';

export interface RecallQuestion {
  id: string;
  text: string;
  /** The fact's kind, or a fix's family. */
  shape: string;
  /** Every session that answers it (the one it was made from among them). */
  answers: string[];
  from: string;
}

export const QUESTION_EVERY: number;
export function recallQuestions(sessions: RecallSession[], options?: { heldOut?: boolean }): RecallQuestion[];
export function unrelatedPrompts(): string[];
export function recallPrompts(options?: { sessions?: number; seed?: number }): {
  sessions: RecallSession[];
  related: { prompt: string; answers: string[] }[];
  unrelated: string[];
};
