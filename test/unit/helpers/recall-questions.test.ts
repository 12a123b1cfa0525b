import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { searchTexts } from '../../../shared/search/text.js';
import { RECALL_SESSIONS, type RecallSession, recallSessions, sessionLines } from '../../helpers/recall-corpus.mjs';
import { fixtureQuestions, fixtureScenarios } from '../../helpers/recall-fixtures.mjs';
import { contentWords, wordsOf } from '../../helpers/recall-measure.mjs';
import { recallPrompts, recallQuestions, unrelatedPrompts } from '../../helpers/recall-questions.mjs';

const tokens = wordsOf;

const sessions = recallSessions();
const questions = recallQuestions(sessions);
const byId = new Map(sessions.map((session) => [session.sessionId, session]));
/** What the index holds of a session: every search text of every line, as ingest extracts them. */
const indexed = new Map<string, string>();
const indexedText = (session: RecallSession): string => {
  let text = indexed.get(session.sessionId);
  if (text === undefined) {
    text = sessionLines(session)
      .flatMap((line) => searchTexts(line).map((searchText) => searchText.text))
      .join('\n');
    indexed.set(session.sessionId, text);
  }
  return text;
};
const vocabulary = new Set(sessions.flatMap((session) => tokens(indexedText(session))));

describe('the recall benchmark corpus', () => {
  it('holds 1,200 sessions in 48 projects, four facts each, the same for the same seed', () => {
    expect(sessions).toHaveLength(RECALL_SESSIONS);
    expect(RECALL_SESSIONS).toBeGreaterThanOrEqual(1_000);
    expect(new Set(sessions.map((session) => session.project)).size).toBe(48);
    // A fact is drawn again while it repeats one made before; the busiest projects run out of a few.
    expect(sessions.every((session) => session.facts[0]?.kind === 'fix' && session.facts.length >= 2)).toBe(true);
    expect(sessions.filter((session) => session.facts.length === 4).length).toBeGreaterThan(0.99 * sessions.length);
    const facts = sessions.flatMap((session) => session.facts.map((fact) => fact.key));
    expect(new Set(facts).size).toBe(facts.length);
    const again = recallSessions();
    expect(JSON.stringify(sessionLines(again[77] as RecallSession))).toBe(
      JSON.stringify(sessionLines(sessions[77] as RecallSession)),
    );
  });

  it("writes Claude Code 2.1.197's shape: a parentUuid chain, tool results answering their calls", () => {
    for (const session of sessions.slice(0, 50)) {
      const lines = sessionLines(session);
      const calls = new Set<string>();
      let parent: unknown = null;
      for (const line of lines) {
        expect(line).toMatchObject({ version: '2.1.197', sessionId: session.sessionId, cwd: session.cwd });
        expect(line.parentUuid).toBe(parent);
        parent = line.uuid;
        const content = (line.message as { content: unknown }).content;
        if (!Array.isArray(content)) continue;
        for (const block of content as { type: string; id?: string; tool_use_id?: string }[]) {
          if (block.type === 'tool_use') calls.add(block.id as string);
          if (block.type === 'tool_result') expect(calls.has(block.tool_use_id as string)).toBe(true);
        }
      }
    }
  });

  it('puts each fix where the index finds it: the error line as an error, the outcome as assistant text', () => {
    for (const session of sessions.slice(0, 50)) {
      const texts = sessionLines(session).flatMap((line) => searchTexts(line));
      const fix = session.facts.find((fact) => fact.kind === 'fix');
      const errorLine = (fix?.error as string).split(' at ')[0] as string;
      expect(texts.some((text) => text.kind === 'error' && text.text.includes(errorLine))).toBe(true);
      expect(texts.some((text) => text.kind === 'assistant' && text.text === fix?.summary)).toBe(true);
    }
  });
});

describe('the recall benchmark questions', () => {
  it('asks at least 300 questions of every fact kind and fix family, each with answer sessions that exist', () => {
    expect(questions.length).toBeGreaterThanOrEqual(300);
    for (const question of questions) {
      expect(question.answers.length).toBeGreaterThan(0);
      expect(question.answers).toContain(question.from);
      for (const answer of question.answers) expect(byId.has(answer)).toBe(true);
    }
    expect(new Set(questions.map((question) => question.shape))).toEqual(
      new Set([
        'edit',
        'library',
        'secret',
        'command',
        'timeout',
        'flaky',
        'refused',
        'undefinedProp',
        'missingModule',
        'duplicateKey',
        'throttled',
      ]),
    );
    expect(new Set(questions.map((question) => question.text)).size).toBe(questions.length);
  });

  it('paraphrases: no question is in a session verbatim, and each has a word its answers never say', () => {
    for (const question of questions) {
      const words = contentWords(question.text);
      for (const answer of question.answers) {
        const text = indexedText(byId.get(answer) as RecallSession);
        expect(text.toLowerCase().includes(question.text.toLowerCase())).toBe(false);
        const said = new Set(tokens(text));
        expect(
          words.filter((word) => !said.has(word)),
          `${question.id} "${question.text}" has every word of ${answer}`,
        ).not.toHaveLength(0);
      }
    }
  });

  it('is answerable by its words: each question shares two or more of its words with the session it came from', () => {
    for (const question of questions) {
      const said = new Set(tokens(indexedText(byId.get(question.from) as RecallSession)));
      const shared = contentWords(question.text).filter((word) => said.has(word));
      expect(shared.length, `${question.id} "${question.text}" shares ${shared.join(', ')}`).toBeGreaterThanOrEqual(2);
    }
  });

  it('gives 100 or more unrelated prompts whose words the corpus holds at most one of', () => {
    const unrelated = unrelatedPrompts();
    expect(unrelated.length).toBeGreaterThanOrEqual(100);
    for (const prompt of unrelated) {
      const known = contentWords(prompt).filter((word) => vocabulary.has(word));
      expect(known.length, `"${prompt}" shares ${known.join(', ')} with the corpus`).toBeLessThanOrEqual(1);
    }
  });

  it('hands the recall hooks the questions as prompts with their answers, and the unrelated prompts', () => {
    const prompts = recallPrompts({ sessions: 90 });
    expect(prompts.sessions).toHaveLength(90);
    expect(prompts.related).toHaveLength(30);
    expect(prompts.related[0]).toEqual({ prompt: expect.any(String), answers: expect.any(Array) });
    expect(prompts.unrelated).toEqual(unrelatedPrompts());
  });
});

describe('the recall benchmark questions over the recorded fixtures', () => {
  const scenarios = fixtureScenarios();
  /** What the index holds of a fixture's main transcript. */
  const fixtureText = (sessionId: string): string => {
    const scenario = scenarios.find((candidate) => candidate.sessionId === sessionId);
    return readFileSync(scenario?.transcript as string, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .flatMap((line) => searchTexts(JSON.parse(line)).map((searchText) => searchText.text))
      .join('\n');
  };

  it('asks two or more of every scenario, paraphrased and answerable as the generated ones', () => {
    const questions = fixtureQuestions();
    expect(new Set(questions.map((question) => question.answers[0]))).toEqual(
      new Set(scenarios.map((scenario) => scenario.sessionId)),
    );
    for (const question of questions) {
      const text = fixtureText(question.from);
      expect(text.toLowerCase().includes(question.text.toLowerCase())).toBe(false);
      const said = new Set(tokens(text));
      const words = contentWords(question.text);
      expect(
        words.filter((word) => !said.has(word)),
        `"${question.text}" has every word`,
      ).not.toHaveLength(0);
      expect(words.filter((word) => said.has(word)).length, `"${question.text}"`).toBeGreaterThanOrEqual(2);
    }
  });
});
