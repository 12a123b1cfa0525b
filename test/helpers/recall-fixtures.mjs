/**
 * The recall benchmark's questions over the recorded fixtures (test/fixtures/claude-code, one
 * session per scenario, Claude Code 2.1.197): written by hand, paraphrased as the generated ones
 * are, each answered by its scenario's session. The bench copies the fixtures' projects beside the
 * generated corpus and asks these with the rest (shape `fixture`).
 */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES_DIR = join(import.meta.dirname, '../fixtures/claude-code');

/** By scenario: questions a user would ask of that session later. */
const QUESTIONS = {
  'coding-loop': [
    'how did we stop customers being overcharged when a flat discount and tax were both applied?',
    'where was the computeTotal bug that charged too much',
    'does formatCurrency round money wrongly as well',
  ],
  checkpoints: [
    'which session built the config loader with defaults, JSON file and env var precedence?',
    'when did we switch the environment prefix over to CLITOOL',
    'where did the verbose flag get documented as a table',
  ],
  compactions: [
    'how did we make create_charge safe to call twice with one idempotency key?',
    'when did stored idempotency keys start expiring after a day',
  ],
  corrections: [
    'which session replaced the regex price extraction with the html parser',
    'the crawler missed the final results page, how was the pagination fixed?',
  ],
  interactive: [
    'why did the overnight partner feed import blow up on rows without a price?',
    'regression test for skipping price-less rows in the feed importer',
  ],
  subagent: [
    'which docs pages were still linking to the deprecated v1 API?',
    'moving the quickstart and the webhooks guide over to v2',
  ],
  'big-outputs': [
    'how many warnings did the CI build log have',
    'comparing the api, worker and scheduler logs from the same night side by side',
  ],
};

/** The fixtures' scenarios with their session ids, from the fixtures' own index. */
export function fixtureScenarios() {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, 'index.json'), 'utf8')).scenarios.map((entry) => ({
    scenario: entry.scenario,
    sessionId: entry.sessionId,
    transcript: join(FIXTURES_DIR, entry.transcript),
  }));
}

/** The questions over the fixtures, in the shape recallQuestions gives (`shape: 'fixture'`). */
export function fixtureQuestions() {
  const questions = [];
  for (const { scenario, sessionId } of fixtureScenarios())
    for (const text of QUESTIONS[scenario] ?? [])
      questions.push({
        id: `f${String(questions.length + 1).padStart(2, '0')}`,
        text,
        shape: 'fixture',
        answers: [sessionId],
        from: sessionId,
      });
  return questions;
}

/** Copies every scenario's projects (transcripts, sub-agents, tool results) under `projectsDir`. */
export function writeFixtureSessions(projectsDir) {
  for (const scenario of readdirSync(FIXTURES_DIR, { withFileTypes: true })) {
    if (!scenario.isDirectory()) continue;
    cpSync(join(FIXTURES_DIR, scenario.name, 'projects'), projectsDir, { recursive: true, preserveTimestamps: true });
  }
}
