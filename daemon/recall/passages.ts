/**
 * "The best passages for a natural-language question" over `search.query` (issue 33). The ranking
 * part of the issue builds `recallPassages` in daemon/search/recall.ts with this signature; until it
 * lands, this adapter asks today's search with the question's informative words joined by OR (a
 * plain-words query is a conjunction there, which a question rarely satisfies), leaves out the
 * excluded sessions and keeps each session's best few passages (today's ranking is recency within a
 * batch more than relevance: the caller chooses among them). The merge replaces this file.
 */
import type { SearchKind } from '../../shared/protocol/search.js';
import type { SearchFilter } from '../search/query.js';
import type { SearchOwner } from '../search/query-pool.js';
import type { SearchService } from '../search/service.js';
import { type QuestionTerm, questionTerms, stemOf } from './terms.js';

/** As daemon/search/recall.ts (the ranking part of issue 33) has it, so that the merge swaps the function only. */
export interface RecallQuestion {
  /** The question, as typed (a prompt, an error's key line). */
  question: string;
  project?: string;
  since?: string;
  kinds?: readonly SearchKind[];
  /** Sessions whose lines are never passages (the asking session). */
  excludeSessions?: readonly string[];
  limit?: number;
}

export interface RecallPassage {
  sessionId: string;
  title?: string;
  project: string;
  /** The project as tables show it (`shop`). */
  projectName: string;
  timestamp: string | null;
  /** The passage, matches unmarked. */
  text: string;
  score: number;
  /** The share of the question's weight it holds, 0-1 (search's own measure; recall weighs again: terms.ts). */
  coverage: number;
  /** `SESSION:UUID`, as `memctl search --context` takes it. */
  ref: string;
  /** The kind of text it is: prompt, assistant, tool, error, output, write, thinking. */
  field: SearchKind;
}

/** Passages a question gets unless asked otherwise. */
const DEFAULT_RECALL_LIMIT = 5;
/** Hits asked for: enough that the excluded session's and a session's next-best lines leave `limit` others. */
const HITS_PER_PASSAGE = 4;
/** Passages kept per session, best first: the caller weighs them and keeps one. */
const PER_SESSION = 3;
/** search.query's own maximum page. */
const MAX_HITS = 100;
/** Prefix queries search.query takes at most (QUERY_LIMITS.prefixes). */
const MAX_PREFIXES = 8;

/** The marks search.query puts around matched words. */
const MARKS = /[«»]/g;

/** The line's uuid a passage's `ref` names. */
export function uuidOfRef(ref: string): string | null {
  const uuid = ref.slice(ref.indexOf(':') + 1);
  return uuid === '' ? null : uuid;
}

/** The terms as one OR query: each word, and its stem as a prefix when the stem is shorter (`retr*` finds `retries`). */
export function orQuery(terms: readonly QuestionTerm[]): string | null {
  const words = terms.map((term) => term.word).filter((word) => /^[\p{L}\p{N}_]+$/u.test(word));
  if (words.length === 0) return null;
  let prefixes = 0;
  const alternatives = words.map((word) => {
    const stem = stemOf(word);
    if (stem === word || stem.length < 4 || prefixes >= MAX_PREFIXES) return word;
    prefixes++;
    return `${stem}*`;
  });
  return alternatives.join(' OR ');
}

/**
 * The passages for the question, each session's best few, best first (recallPassages' signature in
 * daemon/search/recall.ts). `owner`: the asking connection (search.query serves each one query at a
 * time, in turn with the others).
 */
export async function recallPassages(
  search: Pick<SearchService, 'query'>,
  input: RecallQuestion,
  signal?: AbortSignal,
  owner: SearchOwner = 0,
): Promise<RecallPassage[]> {
  const query = orQuery(questionTerms(input.question, (words) => words.map(() => 1)));
  if (query === null) return [];
  const limit = input.limit ?? DEFAULT_RECALL_LIMIT;
  const excludeSessions = input.excludeSessions ?? [];
  const filter: SearchFilter = {
    query,
    limit: Math.min(MAX_HITS, (limit + excludeSessions.length) * HITS_PER_PASSAGE),
    ...(input.project === undefined ? {} : { project: input.project }),
    ...(input.since === undefined ? {} : { since: input.since }),
    ...(input.kinds === undefined ? {} : { kinds: input.kinds }),
  };
  const { hits } = await search.query(filter, owner, signal);
  const excluded = new Set(excludeSessions);
  const kept = new Map<string, number>();
  const passages: RecallPassage[] = [];
  for (const hit of hits) {
    const count = kept.get(hit.sessionId) ?? 0;
    if (excluded.has(hit.sessionId) || hit.uuid === null || hit.snippet === null || count === PER_SESSION) continue;
    if (count === 0 && kept.size === limit) continue;
    kept.set(hit.sessionId, count + 1);
    passages.push({
      sessionId: hit.sessionId,
      ...(hit.title === null ? {} : { title: hit.title }),
      project: hit.project,
      projectName: hit.projectName,
      timestamp: hit.timestamp,
      text: hit.snippet.replace(MARKS, ''),
      score: hit.score,
      coverage: 0,
      ref: `${hit.sessionId}:${hit.uuid}`,
      field: hit.kind,
    });
  }
  return passages;
}

/** What the recall service asks: the question's passages for a connection (search's signal is not passed: service.ts). */
export type RecallPassages = (input: RecallQuestion, owner: SearchOwner) => Promise<RecallPassage[]>;
