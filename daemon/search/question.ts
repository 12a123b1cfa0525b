/**
 * A question in `search.query` (issue 33): plain words ranked by relevance, one hit per session
 * with its best passage. The index says which lines hold which of the question's terms; a line's
 * first score is the BM25 weight of the terms it holds (shared/search/relevance.ts) times its
 * kind's field weight; the best sessions' best lines are then read back and scored on their text
 * (term frequency, length, the question's words as a phrase or near each other), and a session
 * scores its best passage plus a share of the terms its other lines hold. Recency breaks ties and
 * is a mild prior.
 *
 * Candidates, bounded whatever the words: every line of the rarest terms (taken rarest first while
 * their lines fit CANDIDATE_LINES), the newest lines holding every term, and, for each commoner
 * term, which of those candidates hold it too (FTS5 intersects its list with theirs, seeking).
 */
import type Database from 'better-sqlite3';
import { invalidParams } from '../../shared/protocol/errors.js';
import { tokenize } from '../../shared/search/query-syntax.js';
import { type Question, questionOf, questionTerms, stemOf } from '../../shared/search/question.js';
import { relatedWords } from '../../shared/search/related-words.js';
import {
  FIELD_WEIGHTS,
  idf,
  passageScore,
  recencyPrior,
  termsScore,
  type WeightedTerm,
  weightOf,
} from '../../shared/search/relevance.js';
import { kindAt, searchRowParts } from '../store/search-row.js';
import type { RawHit, SearchFilter } from './query.js';
import type { WorkerHit } from './query-pool.js';
import { bindings, createScopeBounds, createTurnsInFlight, scopedLineSql, turnSessions } from './scope.js';
import { type LineReader, markedSnippet } from './snippet.js';
import { createTermStats } from './term-stats.js';

/**
 * Lines a pass over the index reads at most: ~1 µs each, and every line kept is looked up in the
 * entries (~3 µs) once its first score puts it among the best.
 */
const CANDIDATE_LINES = 1_000;
/**
 * The rarest terms whose pairs are looked for when every term is in more lines than a pass reads
 * (at 2.4 GB, "stripe", "secret" and "rotated" each are): 4 give 6 passes.
 */
const PAIRED_TERMS = 4;
/** The lines, best first by their first score, whose sessions are looked up and grouped. */
const GROUPED_LINES = 300;
/**
 * The best sessions by their first score whose lines are read back and scored on their text (the
 * same on every page, so that pages cut one ranking); the sessions after them keep their order,
 * each read back once for its snippet. A page of 50 rescored would read 100 lines back.
 */
const RESCORED_SESSIONS = 25;
/** A session's lines read back and scored on their text, best first by their first score. */
const PASSAGES_PER_SESSION = 2;
/**
 * A session's best passage that is not a prompt is recalled instead of its prompt when its words
 * score this share of the prompt's.
 */
const ANSWER_SHARE = 0.6;
/** A line longer is scored on its terms only: reading a 1 MB tool result back costs milliseconds. */
const MAX_RESCORED_LINE_BYTES = 64 * 1024;
/** What a session's other lines add: this share of the weight of the terms its best passage lacks. */
const SPREAD_WEIGHT = 0.3;
/**
 * What a question's word in the session's project (its folder: the cwd's words) adds: this share
 * of the word's weight. A question often tells sessions apart by their project ("which search
 * service was missing PyYAML?") where no line of the session names it.
 */
const PROJECT_WEIGHT = 0.5;
/** A term's forms with its related words' (shared/search/related-words.ts), at most: each is one lookup. */
const MAX_RELATED_FORMS = 16;
/** Sessions ranked at most: a question's pages are cut from them (`q<offset>` cursors). */
export const MAX_QUESTION_SESSIONS = 200;

/** A question's hit: a session's best passage, with the share of the question's weight it holds. */
export type QuestionHit = WorkerHit & {
  /** The weight of the question's terms the passage holds over their whole weight (0-1). */
  coverage: number;
};

export interface QuestionPage {
  hits: QuestionHit[];
  /** More sessions are ranked past this page. */
  more: boolean;
}

interface Candidate {
  rowid: number;
  present: number;
  first: number;
}

type Located = Omit<RawHit, 'kind' | 'gone' | 'score'> & { rowid: number; kind: number; gone: number };

const quoted = (form: string) => `"${form}"`;

/**
 * The question a search asks: its plain words (two or more, no FTS5 syntax), or whatever it holds
 * when the daemon asks (recall); null for an exact query, which keeps FTS5's meaning.
 */
export function askedQuestion(filter: Pick<SearchFilter, 'query' | 'question'>): Question | null {
  if (filter.question !== true) return questionOf(filter.query);
  return questionTerms(filter.query) ?? { terms: [], tokens: [] };
}

const QUESTION_CURSOR = /^q(\d{1,4})$/;

/** A question's page is its offset among the ranked sessions: `q<offset>`. */
export function questionOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = QUESTION_CURSOR.exec(cursor);
  if (match === null) throw invalidParams('cursor is not one this daemon gave', { kind: 'BadCursor' });
  return Number(match[1]);
}

export const questionCursor = (offset: number) => `q${offset}`;

export function createQuestionSearch(db: Database.Database) {
  const stats = createTermStats(db);
  const scopeOf = createScopeBounds(db);
  const turnsInFlight = createTurnsInFlight(db);
  const ofKinds = `((@kindMask >> ${searchRowParts('s.rowid').kind}) & 1) = 1`;
  const lines = (scoped: boolean) =>
    db
      .prepare(
        scoped
          ? `SELECT s.rowid FROM search_fts s JOIN entries e ON e.rowid = (s.rowid >> 3) JOIN files f ON f.id = e.file_id
             WHERE s.search_fts MATCH @match AND ${ofKinds} AND s.rowid BETWEEN @low AND @high
               AND (@session IS NULL OR f.session_id = @session) AND (@project IS NULL OR f.project = @project)
             ORDER BY s.rowid DESC LIMIT @take`
          : `SELECT s.rowid FROM search_fts s WHERE s.search_fts MATCH @match AND ${ofKinds} AND s.rowid BETWEEN @low AND @high
             ORDER BY s.rowid DESC LIMIT @take`,
      )
      .pluck();
  const linesOf = { whole: lines(false), scoped: lines(true) };
  const lineScope = scopedLineSql('c.value');
  const locate = db.prepare(`
    SELECT c.value AS rowid, e.file_id AS fileId, e.offset AS offset, ${lineScope.kind} AS kind,
           f.session_id AS sessionId, f.project AS project, f.path AS path, f.gone AS gone,
           e.uuid AS uuid, e.timestamp AS timestamp, e.length AS length
    FROM json_each(@rows) c
    ${lineScope.joins}
    WHERE ${lineScope.where}
      AND f.session_id NOT IN (SELECT value FROM json_each(@exclude))`);

  /** The question's terms weighed by the index: each its forms the index holds and its idf. */
  const weigh = (question: Question): { terms: WeightedTerm[]; matches: string[]; documents: number[] } => {
    const { lines: total } = stats.totals();
    const weighed = question.terms.map((term) => {
      const forms = stats.forms(term);
      const held = new Set(forms.map((form) => form.form));
      for (const word of relatedWords(question.tokens, question.tokens.indexOf(term.token)))
        for (const form of stats.forms({ token: word, stem: stemOf(word) })) {
          if (form.documents === 0 || held.has(form.form) || held.size === MAX_RELATED_FORMS) continue;
          held.add(form.form);
          forms.push(form);
        }
      const documents = Math.min(
        total,
        forms.reduce((sum, form) => sum + form.documents, 0),
      );
      return {
        term: { forms: new Set(forms.map((form) => form.form)), idf: idf(documents, total) },
        match:
          forms.length === 1
            ? quoted(forms[0]?.form ?? '')
            : `(${forms.map((form) => quoted(form.form)).join(' OR ')})`,
        documents,
      };
    });
    return {
      terms: weighed.map((entry) => entry.term),
      matches: weighed.map((entry) => entry.match),
      documents: weighed.map((entry) => entry.documents),
    };
  };

  return (
    filter: SearchFilter,
    question: Question,
    now: number,
    reader: LineReader,
    skip: number,
    limit: number,
  ): QuestionPage => {
    const bound = bindings(filter, now);
    const scope = scopeOf(bound);
    const { terms, matches, documents } = weigh(question);
    if (scope === null || terms.length === 0) return { hits: [], more: false };
    const whole = weightOf((1 << terms.length) - 1, terms);
    const scoped = bound.session !== null || bound.project !== null;
    const statement = scoped ? linesOf.scoped : linesOf.whole;
    const where = { kindMask: bound.kindMask, low: scope[0], high: scope[1], take: CANDIDATE_LINES };
    const run = (match: string) =>
      statement.all({
        match,
        ...where,
        ...(scoped ? { session: bound.session, project: bound.project } : {}),
      }) as number[];

    // Candidates: a bit per term each line holds.
    const present = new Map<number, number>();
    const mark = (rows: readonly number[], bits: number) => {
      for (const rowid of rows) present.set(rowid, (present.get(rowid) ?? 0) | bits);
    };
    const all = (1 << terms.length) - 1;
    if (terms.length > 1) mark(run(matches.join(' AND ')), all);
    const order = terms.map((_, at) => at).sort((a, b) => (documents[a] ?? 0) - (documents[b] ?? 0));
    const rare: number[] = [];
    let budget = CANDIDATE_LINES;
    for (const at of order) {
      if ((documents[at] ?? 0) === 0) continue;
      if (rare.length > 0 && (documents[at] ?? 0) > budget) break;
      rare.push(at);
      budget -= documents[at] ?? 0;
      mark(run(matches[at] as string), 1 << at);
    }
    if (rare.length > 0) {
      const anyRare = `(${rare.map((at) => matches[at]).join(' OR ')})`;
      for (const at of order) {
        if (rare.includes(at) || (documents[at] ?? 0) === 0) continue;
        mark(run(`${matches[at]} AND ${anyRare}`), 1 << at);
      }
    }
    // Even the rarest term is in more lines than a pass reads: its lines are only the newest. An
    // older session holding two of the question's words together is found by their pairs.
    const held = order.filter((at) => (documents[at] ?? 0) > 0).slice(0, PAIRED_TERMS);
    if ((documents[held[0] ?? -1] ?? 0) > CANDIDATE_LINES)
      for (const [index, first] of held.entries())
        for (const second of held.slice(index + 1))
          mark(run(`${matches[first]} AND ${matches[second]}`), (1 << first) | (1 << second));
    if (present.size === 0) return { hits: [], more: false };

    // The best lines by the terms they hold, then where they are.
    const candidates: Candidate[] = [];
    for (const [rowid, bits] of present)
      candidates.push({ rowid, present: bits, first: termsScore(bits, terms, kindAt(rowid & 7)) });
    candidates.sort((a, b) => b.first - a.first || b.rowid - a.rowid);
    // A filter the lines are checked against only here (a time, sessions left out: recall leaves out
    // the asking session, whose lines match its own prompt best) could empty the best lines: then
    // every candidate is looked up. A turn in flight is a few lines.
    const turnsAsked = turnSessions(filter);
    const filtered = bound.since !== null || bound.until !== null || (filter.excludeSessions ?? []).length > 0;
    const grouped = filtered ? candidates : candidates.slice(0, GROUPED_LINES);
    const byRow = new Map(grouped.map((candidate) => [candidate.rowid, candidate]));
    const located = locate.all({
      ...bound,
      rows: JSON.stringify([...byRow.keys()]),
      turns: turnsInFlight(turnsAsked),
      exclude: JSON.stringify(filter.excludeSessions ?? []),
    }) as Located[];

    // Sessions, each with its lines best first.
    const sessions = new Map<string, { lines: Located[]; present: number }>();
    for (const line of located) {
      const session = sessions.get(line.sessionId) ?? { lines: [], present: 0 };
      session.lines.push(line);
      session.present |= byRow.get(line.rowid)?.present ?? 0;
      sessions.set(line.sessionId, session);
    }
    const firstOf = (line: Located) => byRow.get(line.rowid)?.first ?? 0;
    const presentOf = (line: Located) => byRow.get(line.rowid)?.present ?? 0;
    const projects = new Map<string, number>();
    /** The terms the project's folder holds, as bits. */
    const projectBits = (project: string) => {
      let bits = projects.get(project);
      if (bits === undefined) {
        const words = new Set(tokenize(project));
        bits = 0;
        terms.forEach((term, at) => {
          for (const form of term.forms) if (words.has(form)) bits = (bits as number) | (1 << at);
        });
        projects.set(project, bits);
      }
      return bits;
    };
    const sessionScore = (best: number, bestPresent: number, sessionPresent: number, line: Located) =>
      (best +
        SPREAD_WEIGHT * weightOf(sessionPresent & ~bestPresent, terms) +
        PROJECT_WEIGHT * weightOf(projectBits(line.project) & ~bestPresent, terms)) *
      recencyPrior(line.timestamp, now);
    const ranked = [...sessions.values()]
      .map((session) => {
        session.lines.sort((a, b) => firstOf(b) - firstOf(a) || b.rowid - a.rowid);
        const best = session.lines[0] as Located;
        return { session, score: sessionScore(firstOf(best), presentOf(best), session.present, best), best };
      })
      .sort((a, b) => b.score - a.score || (b.best.timestamp ?? '').localeCompare(a.best.timestamp ?? ''))
      .slice(0, MAX_QUESTION_SESSIONS);

    // The best sessions scored on their lines' text.
    const { averageLength } = stats.totals();
    const readBack = (line: Located) => {
      const hit = { ...line, kind: kindAt(line.kind) };
      const text = line.length > MAX_RESCORED_LINE_BYTES ? null : reader.text(hit);
      const scored =
        text === null
          ? { score: firstOf(line), present: presentOf(line) }
          : passageScore(tokenize(text), terms, hit.kind, averageLength);
      return { line, ...scored, text };
    };
    const isPrompt = (line: Located) => kindAt(line.kind) === 'prompt';
    const rescored = ranked.slice(0, RESCORED_SESSIONS).map(({ session }) => {
      const read = session.lines.slice(0, PASSAGES_PER_SESSION).map(readBack);
      const top = read.reduce((best, passage) => (passage.score > best.score ? passage : best));
      // Recall's passage (filter.question: the hooks, the MCP tool) is what the session said or did
      // about the question when it comes close: a prompt only asks it again.
      let answer: (typeof read)[number] | undefined;
      if (filter.question === true && isPrompt(top.line)) {
        const other = session.lines.find((line) => !isPrompt(line));
        const passage = other === undefined ? undefined : (read.find((done) => done.line === other) ?? readBack(other));
        // Compared on their words, the prompt's field weight set aside.
        const words = (scored: { line: Located; score: number }) =>
          scored.score / FIELD_WEIGHTS[kindAt(scored.line.kind)];
        if (passage !== undefined && words(passage) >= words(top) * ANSWER_SHARE) answer = passage;
      }
      return {
        ...(answer ?? top),
        score: sessionScore(top.score, top.present, session.present | top.present, top.line),
      };
    });
    rescored.sort((a, b) => b.score - a.score || (b.line.timestamp ?? '').localeCompare(a.line.timestamp ?? ''));
    const forms = terms.flatMap((term) => [...term.forms]);
    const rest = ranked.slice(RESCORED_SESSIONS).map(({ best, score }) => ({
      line: best,
      score,
      present: presentOf(best),
      text: null as string | null,
      read: false,
    }));
    const ranking = [...rescored.map((entry) => ({ ...entry, read: true })), ...rest];
    const hits = ranking.slice(skip, skip + limit).map(({ line, score, present: bits, text, read }): QuestionHit => {
      const kind = kindAt(line.kind);
      const passage = text ?? (!read || line.length > MAX_RESCORED_LINE_BYTES ? reader.text({ ...line, kind }) : null);
      return {
        fileId: line.fileId,
        offset: line.offset,
        kind,
        score,
        sessionId: line.sessionId,
        project: line.project,
        path: line.path,
        uuid: line.uuid,
        timestamp: line.timestamp,
        length: line.length,
        gone: line.gone === 1,
        snippet: passage === null ? null : markedSnippet(passage, forms, filter.passageChars),
        coverage: whole === 0 ? 0 : Math.round((weightOf(bits, terms) / whole) * 1000) / 1000,
      };
    });
    return { hits, more: ranked.length > skip + limit };
  };
}
