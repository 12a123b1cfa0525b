/**
 * The passages recall weighs: search's `recallPassages` (daemon/search/recall.ts, issue 33), one
 * per session, best first, each with the share of the question's weight it holds.
 */
import type { SearchOwner } from '../search/query-pool.js';
import type { RecallPassage, RecallQuestion } from '../search/recall.js';

export type { RecallPassage, RecallQuestion } from '../search/recall.js';

/** The line's uuid a passage's `ref` (`SESSION:UUID`) names. */
export function uuidOfRef(ref: string): string | null {
  const uuid = ref.slice(ref.indexOf(':') + 1);
  return uuid === '' ? null : uuid;
}

/** What the recall service asks: the question's passages for a connection (search's signal is not passed: service.ts). */
export type RecallPassages = (input: RecallQuestion, owner: SearchOwner) => Promise<RecallPassage[]>;
