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

export interface RecallQuestion {
  question: string;
  /** The question's terms when the caller has them (recall's threshold weighs them), else the words of `question`. */
  terms?: readonly QuestionTerm[];
  project?: string;
  since?: string;
  kinds?: readonly SearchKind[];
  /** Sessions never answered from (the asking session). */
  excludeSessions: readonly string[];
  limit: number;
}

export interface RecallPassage {
  sessionId: string;
  title?: string;
  project: string;
  /** The project as tables show it (`shop`). */
  projectName: string;
  timestamp: string | null;
  /** The line's uuid, for `memctl search --context`; null for a line without one. */
  uuid: string | null;
  /** The passage, matches unmarked. */
  text: string;
  score: number;
  /** `SESSION:UUID`, as `memctl search --context` takes it. */
  ref: string;
  /** The kind of text it is: prompt, assistant, tool, error, output, write, thinking. */
  field: SearchKind;
}

/** `memctl search --context` takes the first 8 characters of a session id, as memctl prints them. */
const REF_SESSION_CHARS = 8;
/** Hits asked for: enough that the excluded session's and a session's second-best lines leave `limit` others. */
const HITS_PER_PASSAGE = 4;
/** Passages kept per session, best first: the caller weighs them and keeps one. */
const PER_SESSION = 3;
/** search.query's own maximum page. */
const MAX_HITS = 100;
/** Prefix queries search.query takes at most (QUERY_LIMITS.prefixes). */
const MAX_PREFIXES = 8;

/** The marks search.query puts around matched words. */
const MARKS = /[«»]/g;

export function refOf(sessionId: string, uuid: string | null): string {
  return `${sessionId.slice(0, REF_SESSION_CHARS)}:${uuid ?? ''}`;
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

/** `owner`: the asking connection (search.query serves each one query at a time, in turn with the others). */
export function createRecallPassages(deps: { search: Pick<SearchService, 'query'> }) {
  return async (input: RecallQuestion, owner: SearchOwner = 0, signal?: AbortSignal): Promise<RecallPassage[]> => {
    const query = orQuery(input.terms ?? questionTerms(input.question, (words) => words.map(() => 1)));
    if (query === null) return [];
    const filter: SearchFilter = {
      query,
      limit: Math.min(MAX_HITS, input.limit * HITS_PER_PASSAGE + input.excludeSessions.length * HITS_PER_PASSAGE),
      ...(input.project === undefined ? {} : { project: input.project }),
      ...(input.since === undefined ? {} : { since: input.since }),
      ...(input.kinds === undefined ? {} : { kinds: input.kinds }),
    };
    const { hits } = await deps.search.query(filter, owner, signal);
    const excluded = new Set(input.excludeSessions);
    const kept = new Map<string, number>();
    const passages: RecallPassage[] = [];
    for (const hit of hits) {
      const count = kept.get(hit.sessionId) ?? 0;
      if (excluded.has(hit.sessionId) || hit.snippet === null || count === PER_SESSION) continue;
      if (count === 0 && kept.size === input.limit) continue;
      kept.set(hit.sessionId, count + 1);
      passages.push({
        sessionId: hit.sessionId,
        ...(hit.title === null ? {} : { title: hit.title }),
        project: hit.project,
        projectName: hit.projectName,
        timestamp: hit.timestamp,
        uuid: hit.uuid,
        text: hit.snippet.replace(MARKS, ''),
        score: hit.score,
        ref: refOf(hit.sessionId, hit.uuid),
        field: hit.kind,
      });
    }
    return passages;
  };
}

export type RecallPassages = ReturnType<typeof createRecallPassages>;
