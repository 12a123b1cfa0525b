import { describe, expect, it } from 'vitest';
import type { RecallPassage, RecallQuestion } from '../../../../daemon/recall/passages.js';
import { courseText, createRecallService, type RecallDeps } from '../../../../daemon/recall/service.js';
import { MEMD_RECALL_HEAD } from '../../../../shared/protocol/recall.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { memoryInjectedBook } from '../../../helpers/recall-book.js';

const ASKING = 'aaaaaaaa-0000-4000-8000-000000000001';
const PAST = 'bbbbbbbb-0000-4000-8000-000000000002';
const OTHER = 'cccccccc-0000-4000-8000-000000000003';

function passage(
  sessionId: string,
  uuid: string,
  text: string,
  field: RecallPassage['field'] = 'assistant',
): RecallPassage {
  return {
    sessionId,
    title: `title of ${sessionId.slice(0, 4)}`,
    project: '-home-user-src-shop',
    projectName: 'shop',
    timestamp: '2026-11-02T10:00:00.000Z',
    text,
    score: 1,
    coverage: 0,
    ref: `${sessionId}:${uuid}`,
    field,
  };
}

const PASSAGES = [
  passage(ASKING, 'u0', 'the flaky retry test times out on the payment webhook'),
  passage(PAST, 'u1', 'Fixed the flaky retry test: the payment webhook stub never answered, so it timed out.'),
  passage(OTHER, 'u2', 'The retry button colour is wrong'),
  passage(OTHER, 'u3', `${MEMD_RECALL_HEAD} flaky retry test payment webhook`),
];

/** A project memory, in the private scope only. */
const MEMORY = {
  name: 'checkout-tests',
  description: 'how the checkout suite is kept stable',
  content: 'The payment webhook is answered by fakeWebhook in tests: the flaky retry test timed out without it.',
};

function service(
  config: Partial<RecallDeps['config']> = {},
  passages = PASSAGES,
  late?: () => Promise<RecallPassage[]>,
  memories: (typeof MEMORY)[] = [],
) {
  const asked: RecallQuestion[] = [];
  const deps: RecallDeps = {
    config: { recallPromptTokens: 1_500, recallFailure: true, recallMinCoverage: 0.6, ...config },
    // No signal: a hook that stops waiting must not stop the search, which would kill a search process.
    passages: async (input) => {
      asked.push(input);
      if (late !== undefined) return late();
      // As search does: the excluded sessions never come back.
      return passages.filter((found) => !input.excludeSessions?.includes(found.sessionId));
    },
    weights: (words) => words.map(() => 1),
    transcripts: {
      mainEntries: async () => {
        throw new Error('not read in this test');
      },
      read: async () => [],
    },
    memdir: {
      list: async (_project, scope) => ({ memories: scope === 'private' ? memories : [] }) as never,
      read: async (_project, _scope, name) => (memories.find((memory) => memory.name === name) ?? null) as never,
    },
    injected: memoryInjectedBook().book,
    log: fakeLogger(),
  };
  return { recall: createRecallService(deps), asked };
}

const call = { sessionId: ASKING, deadlineMs: 5_000, owner: 1, signal: new AbortController().signal };
const PROMPT = 'how did we fix the flaky retry test that timed out on the payment webhook?';

describe('recall.forPrompt', () => {
  it("gives another session's passage that holds the question, framed, never the asking session's or memd's own", async () => {
    const { recall, asked } = service();
    const result = await recall.forPrompt({ ...call, prompt: PROMPT });
    expect(asked[0]?.excludeSessions).toEqual([ASKING]);
    expect(result.skipped).toBeNull();
    expect(result.sources.map((source) => source.uuid)).toEqual(['u1']);
    expect(result.additionalContext).toContain(`${MEMD_RECALL_HEAD} passages from other sessions`);
    expect(result.additionalContext).toContain('memctl search --context bbbbbbbb:u1');
    expect(result.additionalContext).not.toContain('colour');
    expect(result.tokens).toBeLessThanOrEqual(1_500);
  });

  it("gives the project's memory that holds the prompt, with the passages", async () => {
    const { recall } = service({}, PASSAGES, undefined, [MEMORY]);
    const result = await recall.forPrompt({ ...call, cwd: '/home/user/src/shop', prompt: PROMPT });
    expect(result.sources.map((source) => source.sessionId)).toEqual(['memory:private:checkout-tests', PAST]);
    expect(result.additionalContext).toContain('project memory "checkout-tests" (private): how the checkout suite');
    // Without a cwd there is no project to read.
    expect(
      (await service({}, PASSAGES, undefined, [MEMORY]).recall.forPrompt({ ...call, prompt: PROMPT })).sources,
    ).toHaveLength(1);
  });

  it("keeps search's order and leaves out a passage well below the best one's relevance (issue 33)", async () => {
    const THIRD = 'dddddddd-0000-4000-8000-000000000004';
    const ranked = [
      { ...passage(OTHER, 'u5', 'the flaky retry test on the payment webhook timed out again'), score: 9 },
      { ...passage(PAST, 'u1', 'Fixed the flaky retry test: the payment webhook stub never answered.'), score: 10 },
      { ...passage(THIRD, 'u6', 'a flaky retry test of the payment webhook, timed out once'), score: 5 },
    ].sort((a, b) => b.score - a.score);
    const result = await service({}, ranked).recall.forPrompt({ ...call, prompt: PROMPT });
    // 9 is 90 % of the best: another subject, though it holds the words; 5 is half.
    expect(result.sources.map((source) => source.uuid)).toEqual(['u1']);
    const close = ranked.map((found) => (found.score === 9 ? { ...found, score: 9.6 } : found));
    expect(
      (await service({}, close).recall.forPrompt({ ...call, prompt: PROMPT })).sources.map((source) => source.uuid),
    ).toEqual(['u1', 'u5']);
  });

  it('gives the same passage once per session', async () => {
    const { recall } = service();
    expect((await recall.forPrompt({ ...call, prompt: PROMPT })).sources).toHaveLength(1);
    expect(await recall.forPrompt({ ...call, prompt: PROMPT })).toMatchObject({
      additionalContext: null,
      skipped: 'already-injected',
    });
    // Another session may have it.
    const other = await recall.forPrompt({ ...call, sessionId: OTHER, prompt: PROMPT });
    expect(other.sources.map((source) => source.uuid)).toContain('u1');
  });

  it('says nothing for a prompt no passage holds enough of, nor for a prompt of filler', async () => {
    const { recall } = service();
    expect(
      await recall.forPrompt({ ...call, prompt: 'make the retry button colour match the brand palette' }),
    ).toMatchObject({
      additionalContext: null,
      skipped: 'below-threshold',
    });
    expect((await recall.forPrompt({ ...call, prompt: 'yes please, go on' })).skipped).toBe('too-short');
  });

  it('is off with a budget of 0, and within a small budget gives nothing rather than half a passage', async () => {
    expect((await service({ recallPromptTokens: 0 }).recall.forPrompt({ ...call, prompt: PROMPT })).skipped).toBe(
      'off',
    );
    const small = await service({ recallPromptTokens: 60 }).recall.forPrompt({ ...call, prompt: PROMPT });
    expect(small).toMatchObject({ additionalContext: null, skipped: 'below-threshold' });
  });

  it('answers by its deadline when the passages are late', async () => {
    const { recall } = service({}, PASSAGES, () => new Promise(() => undefined));
    expect((await recall.forPrompt({ ...call, deadlineMs: 1, prompt: PROMPT })).skipped).toBe('deadline');
  });
});

describe('recall.forFailure', () => {
  it('is off with recallFailure off', async () => {
    const { recall } = service({ recallFailure: false });
    expect(
      (await recall.forFailure({ ...call, toolName: 'Bash', error: 'Exit code 1\nTimeoutError: x y z' })).skipped,
    ).toBe('off');
  });

  it('words the course after a failure: the failure, the steps, the run that passed', () => {
    expect(
      courseText(
        {
          failed: '`npm test`',
          keyLine: 'TimeoutError: payment webhook did not answer',
          steps: ['Edit test/retry.test.js: `a` → `b`'],
          passed: '`npm test`',
        },
        'unused',
      ),
    ).toBe(
      '`npm test` failed there with: TimeoutError: payment webhook did not answer\nThen: Edit test/retry.test.js: `a` → `b`.\nAfter that, `npm test` passed.',
    );
  });
});
