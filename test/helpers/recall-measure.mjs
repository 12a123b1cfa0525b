/**
 * How the recall benchmark scores a ranking (issue 33, docs/recall.md "The benchmark"): each
 * question is sent as typed to `search.query`; its hits are read as sessions, in the order of their
 * first hit (hits may be lines: a session's later lines add nothing); the rank is where the first
 * answer session stands. hit@1, recall@5 (an answer among the first five sessions), MRR, and the
 * latency of each call. A query memd refuses (InvalidParams) finds nothing. Plain JS, shared by
 * bench/recall.js and the tests.
 */

/** Hits asked per question: enough lines for five sessions while hits are lines (as on main). */
export const RECALL_LIMIT = 50;

/**
 * Words that say nothing of what is asked (question words, pronouns, articles, auxiliaries,
 * prepositions): what the tests leave out when they compare a question's words with a session's.
 */
export const QUESTION_STOP_WORDS = new Set(
  (
    'a an the and or of in on at for to from by with about up again before after last only some time ' +
    'how why what which when where who did do does we i my our us me it its this that was were is be ' +
    'seen hit around over through under into'
  ).split(' '),
);

/** Words as FTS5's unicode61 tokenizer splits them: letters and digits, case folded (`_`, `-`, `.` separate). */
export const wordsOf = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A question's words that say what is asked, each once. */
export const contentWords = (text) =>
  [...new Set(wordsOf(text))].filter((word) => word.length > 1 && !QUESTION_STOP_WORDS.has(word));

/**
 * The question as FTS5 syntax: its content words joined by OR (what a user who knows the syntax
 * would type; on main, the only query bm25 ranks). A reference beside the plain words, not the measure.
 */
export const orQuery = (text) => contentWords(text).join(' OR ');

/** The sessions of a page of hits, each once, in the order of its first hit. */
export function sessionsOf(hits) {
  const seen = new Set();
  for (const hit of hits) seen.add(hit.sessionId);
  return [...seen];
}

/**
 * Asks every question (`{text, answers}`) through `searchQuery(params)`, one at a time; returns
 * per question the sessions found, the rank of the first answer (null: none), its time, and the
 * error when memd refused it.
 */
export async function askAll(searchQuery, questions, { limit = RECALL_LIMIT } = {}) {
  const results = [];
  for (const question of questions) {
    const started = performance.now();
    let sessions = [];
    let error = null;
    try {
      sessions = sessionsOf((await searchQuery({ query: question.text, limit })).hits);
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const ms = performance.now() - started;
    const answers = new Set(question.answers);
    const at = sessions.findIndex((sessionId) => answers.has(sessionId));
    results.push({ question, sessions, rank: at === -1 ? null : at + 1, ms, error });
  }
  return results;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

function rates(results) {
  const n = results.length;
  const ranked = (within) => results.filter((result) => result.rank !== null && result.rank <= within).length / n;
  return {
    questions: n,
    hit1: ranked(1),
    recall5: ranked(5),
    mrr: results.reduce((sum, result) => sum + (result.rank === null ? 0 : 1 / result.rank), 0) / n,
    found: results.filter((result) => result.sessions.length > 0).length / n,
    refused: results.filter((result) => result.error !== null).length,
  };
}

/** The figures over `results` (askAll's), overall and by question shape. */
export function scoreRecall(results) {
  const ms = results.map((result) => result.ms);
  const byShape = {};
  for (const shape of new Set(results.map((result) => result.question.shape)))
    byShape[shape] = rates(results.filter((result) => result.question.shape === shape));
  return { ...rates(results), p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), byShape };
}
