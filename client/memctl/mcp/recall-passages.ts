/**
 * The best passages of past sessions for a question in plain words (issue 33): what the MCP tool
 * `recall` answers with. `search.query` ranks plain words as a question (daemon/search/question.ts:
 * rare words weigh more, one hit per session with its best passage); this keeps the question's
 * subject words, asks, and leaves out passages that share fewer than two words with it.
 */
import type { SearchHit, SearchKind, SearchQueryResult } from '../../../shared/protocol/search.js';
import { tokenize } from '../../../shared/search/query-syntax.js';
import { queryTerms } from '../../../shared/text/excerpt.js';

export interface RecallInput {
  question: string;
  /** Only this project (its name, folder or directory). */
  project?: string | undefined;
  /** Sessions never recalled from: the asking one (its lines are in the model's context already). */
  excludeSessions?: readonly string[] | undefined;
  limit: number;
}

export interface RecallPassage {
  sessionId: string;
  title?: string;
  /** The project as tables show it (`shop`, `acme/api`). */
  project: string;
  timestamp: string | null;
  /** The passage, its matched words «marked». */
  text: string;
  score: number;
  /** `SESSION:UUID`, as `memctl search --context` takes it; session_context takes its two halves. */
  ref: string;
  field: SearchKind;
}

export interface RecallSearch {
  searchQuery(params: {
    query: string;
    limit: number;
    project?: string;
    askingSession?: string;
  }): Promise<SearchQueryResult>;
}

/**
 * Words that say how a question is asked, not what it is about: matched, they would rank a session
 * for its grammar. Short on purpose: a word of the subject left out here costs a miss.
 */
const STOP_WORDS = new Set(
  (
    'a an and any are as at be been being but by can could did do does done for from had has have how i if in into ' +
    'is it its me my of on or our should so that the their them then there these this those to us was we were ' +
    'what when where which who whom why will with would you your about again before earlier last past previous ' +
    'session sessions time ever find get got'
  ).split(' '),
);
/** Words asked for at most: a question needs few, and each costs the ranking a lookup. */
const MAX_WORDS = 12;
/** Hits asked for: one per session, enough that the passages sharing one word only leave `limit` others. */
const CANDIDATE_HITS = 100;
/**
 * The question's words a passage must hold to be recalled (all of a one-word question): one shared
 * word is a coincidence (a "fix" in every session), not an answer, and quiet beats a wrong passage.
 * Not more: a paraphrase shares few words exactly (invoices, discounted).
 */
const MIN_WORDS_HELD = 2;
/** The session id's characters a reference keeps, as memctl search prints it. */
const REF_SESSION_CHARS = 8;

/** The question's words that name its subject, in order, each once. */
export function questionWords(question: string): string[] {
  const words = tokenize(question).filter((word) => word.length > 1 && !STOP_WORDS.has(word));
  return [...new Set(words)].slice(0, MAX_WORDS);
}

/**
 * The query sent: the subject words as plain words (two or more are a question, ranked by
 * relevance), a lone word quoted (one plain word is an exact query: quoted, it is never syntax).
 */
export function questionQuery(words: readonly string[]): string {
  return words.length === 1 ? `"${words[0]}"` : words.join(' ');
}

/** The question's words a passage holds: its marked terms. */
function held(hit: SearchHit, words: readonly string[]): number {
  const asked = new Set(words);
  return new Set(queryTerms(hit.snippet ?? '').filter((term) => asked.has(term))).size;
}

export async function recallPassages(memd: RecallSearch, input: RecallInput): Promise<RecallPassage[]> {
  const words = questionWords(input.question);
  if (words.length === 0) return [];
  // The first excluded session is the asking one (recall.ts passes only it): its turn in flight is left out too.
  const asking = input.excludeSessions?.[0];
  const result = await memd.searchQuery({
    query: questionQuery(words),
    limit: CANDIDATE_HITS,
    ...(input.project === undefined ? {} : { project: input.project }),
    ...(asking === undefined ? {} : { askingSession: asking }),
  });
  const excluded = new Set(input.excludeSessions ?? []);
  const needed = Math.min(words.length, MIN_WORDS_HELD);
  const best = new Map<string, SearchHit>();
  // search.query's order is relevance: the first passage of a session that holds enough words is its best.
  for (const hit of result.hits)
    if (
      hit.uuid !== null &&
      hit.snippet !== null &&
      !excluded.has(hit.sessionId) &&
      !best.has(hit.sessionId) &&
      held(hit, words) >= needed
    )
      best.set(hit.sessionId, hit);
  return [...best.values()].slice(0, input.limit).map((hit) => ({
    sessionId: hit.sessionId,
    ...(hit.title === null ? {} : { title: hit.title }),
    project: hit.projectName,
    timestamp: hit.timestamp,
    text: hit.snippet ?? '',
    score: hit.score,
    ref: `${hit.sessionId.slice(0, REF_SESSION_CHARS)}:${hit.uuid}`,
    field: hit.kind,
  }));
}
