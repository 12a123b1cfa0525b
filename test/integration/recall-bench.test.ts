/**
 * The recall benchmark's path through a real memd (issue 33 item 2), on a slice of its corpus: the
 * generated sessions are ingested under their own ids, the measure finds each one by a line only it
 * holds (a control whose rank must be 1 under any ranking), and the paraphrased questions are asked
 * as typed and scored. The figures themselves are `npm run bench -- recall`'s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { type RecallSession, recallSessions, writeRecallCorpus } from '../helpers/recall-corpus.mjs';
import { askAll, scoreRecall, wordsOf } from '../helpers/recall-measure.mjs';
import { recallQuestions } from '../helpers/recall-questions.mjs';
import { type DaemonProcess, eventually, keepForFile, makeSandbox, startDaemon } from '../helpers/sandbox.js';

const SESSIONS = 45;
/** Sessions looked up by a command only they ran: a sample is enough to show the measure counts right. */
const CONTROLS = 15;
/** Ingesting 45 sessions (1.3 MB) and building their index: seconds, on a loaded machine more. */
const INGEST_DEADLINE_MS = 60_000;
/** A search's answer on a machine busy with the other tests: its first query starts a search process. */
const ANSWER_DEADLINE_MS = 30_000;
/** Fifteen searches, each a few ms on an idle machine and seconds on one running six engineers' tests. */
const ASKING_DEADLINE_MS = 120_000;

/** A command only this session ran (a secret's rotation or a command fact: both unique in the corpus). */
function ownCommand(session: RecallSession): string {
  const fact = session.facts.find((candidate) => candidate.kind === 'secret' || candidate.kind === 'command');
  return fact?.command as string;
}

describe('the recall benchmark against a real memd', () => {
  const sessions = recallSessions({ sessions: SESSIONS });
  let client: Client;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    const sandbox = makeSandbox();
    writeRecallCorpus(sandbox.projectsDir, sessions);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false, timeoutMs: ANSWER_DEADLINE_MS });
    await eventually(
      async () => {
        const { ingest } = await client.daemonStatus();
        const { index } = await client.searchQuery({ query: 'retry' });
        return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && index.state === 'ready';
      },
      'the corpus to be ingested and indexed',
      INGEST_DEADLINE_MS,
    );
  }, INGEST_DEADLINE_MS + 15_000);

  afterAll(() => client?.close());

  it(
    'finds every session first by a command only it ran',
    async () => {
      const controls = sessions.slice(0, CONTROLS).map((session) => ({
        text: wordsOf(ownCommand(session)).join(' '),
        answers: [session.sessionId],
        shape: 'control',
      }));
      const results = await askAll((params) => client.searchQuery(params), controls);
      expect(results.filter((result) => result.rank !== 1).map((result) => result.question.text)).toEqual([]);
      expect(scoreRecall(results)).toMatchObject({ hit1: 1, recall5: 1, mrr: 1, refused: 0 });
    },
    ASKING_DEADLINE_MS,
  );

  it(
    'asks the paraphrased questions as typed and scores every one',
    async () => {
      const questions = recallQuestions(sessions);
      const results = await askAll((params) => client.searchQuery(params), questions);
      expect(results).toHaveLength(questions.length);
      const score = scoreRecall(results);
      for (const rate of [score.hit1, score.recall5, score.mrr, score.found]) expect(rate >= 0 && rate <= 1).toBe(true);
      // A refusal is memd's answer, not a broken measure: it is a query parse error with its position.
      for (const result of results.filter((candidate) => candidate.error !== null))
        expect(result.error).toMatch(/not valid at position/);
      console.log(
        `recall slice: ${questions.length} questions, hit@1 ${score.hit1.toFixed(2)}, recall@5 ${score.recall5.toFixed(2)}, MRR ${score.mrr.toFixed(3)}, refused ${score.refused}`,
      );
    },
    ASKING_DEADLINE_MS,
  );
});
