/**
 * The best passages of past sessions for a question in plain words (issue 33): what the MCP tool
 * `recall` answers with. The daemon's own `recallPassages` (daemon/search/recall.ts, issue 33
 * item 1) ranks by relevance over the index's statistics; until a daemon serves it, this adapter
 * asks `search.query` for any of the question's words and ranks what comes back here. It has the
 * daemon function's shape, so that the swap is this one function's body.
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
/** Words asked for at most: search.query takes 32 OR branches (QUERY_LIMITS), a question needs far fewer. */
const MAX_WORDS = 12;
/** Hits asked for: enough sessions to choose the best passages from, one page of search.query's 100. */
const CANDIDATE_HITS = 100;
/**
 * The question's words a passage must hold to be recalled (all of a one-word question): one shared
 * word is a coincidence (a "fix" in every session), not an answer, and quiet beats a wrong passage.
 * Not more: a paraphrase shares few words exactly (invoices, discounted), and the index has no stems.
 */
const MIN_WORDS_HELD = 2;
/** The session id's characters a reference keeps, as memctl search prints it. */
const REF_SESSION_CHARS = 8;

/** The question's words that name its subject, in order, each once. */
export function questionWords(question: string): string[] {
  const words = tokenize(question).filter((word) => word.length > 1 && !STOP_WORDS.has(word));
  return [...new Set(words)].slice(0, MAX_WORDS);
}

/** Any of the words, each quoted: a word is looked for as it is, never read as FTS5 syntax. */
export function anyOf(words: readonly string[]): string {
  return words.map((word) => `"${word}"`).join(' OR ');
}

/**
 * Each candidate's score: the words its passage holds, a word found in fewer candidates weighing
 * more (an inverse document frequency over the candidates, the index's own statistics being the
 * daemon's to use); 0 for a passage with fewer than MIN_WORDS_HELD of them.
 */
function scored(hits: readonly SearchHit[], words: readonly string[]): { hit: SearchHit; score: number }[] {
  const asked = new Set(words);
  const needed = Math.min(words.length, MIN_WORDS_HELD);
  const matched = hits.map((hit) => {
    const terms = new Set(queryTerms(hit.snippet ?? '').filter((term) => asked.has(term)));
    return terms.size >= needed ? terms : new Set<string>();
  });
  const frequency = new Map<string, number>();
  for (const terms of matched) for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return hits.map((hit, index) => {
    let score = 0;
    for (const term of matched[index] ?? []) score += Math.log(1 + hits.length / (frequency.get(term) ?? 1));
    return { hit, score };
  });
}

export async function recallPassages(memd: RecallSearch, input: RecallInput): Promise<RecallPassage[]> {
  const words = questionWords(input.question);
  if (words.length === 0) return [];
  // The first excluded session is the asking one (recall.ts passes only it): its turn in flight is left out too.
  const asking = input.excludeSessions?.[0];
  const result = await memd.searchQuery({
    query: anyOf(words),
    limit: CANDIDATE_HITS,
    ...(input.project === undefined ? {} : { project: input.project }),
    ...(asking === undefined ? {} : { askingSession: asking }),
  });
  const excluded = new Set(input.excludeSessions ?? []);
  const candidates = result.hits.filter(
    (hit) => hit.uuid !== null && hit.snippet !== null && !excluded.has(hit.sessionId),
  );
  // Best first, the daemon's order (relevance, then recency) breaking ties; then one passage per session.
  const ranked = scored(candidates, words)
    .map((entry, order) => ({ ...entry, order }))
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const best = new Map<string, { hit: SearchHit; score: number }>();
  for (const entry of ranked)
    if (entry.score > 0 && !best.has(entry.hit.sessionId)) best.set(entry.hit.sessionId, entry);
  return [...best.values()].slice(0, input.limit).map(({ hit, score }) => ({
    sessionId: hit.sessionId,
    ...(hit.title === null ? {} : { title: hit.title }),
    project: hit.projectName,
    timestamp: hit.timestamp,
    text: hit.snippet ?? '',
    score,
    ref: `${hit.sessionId.slice(0, REF_SESSION_CHARS)}:${hit.uuid}`,
    field: hit.kind,
  }));
}
