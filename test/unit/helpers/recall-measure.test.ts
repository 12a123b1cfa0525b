import { describe, expect, it } from 'vitest';
import { askAll, contentWords, orQuery, scoreRecall, sessionsOf } from '../../helpers/recall-measure.mjs';

const hits = (...sessionIds: string[]) => ({ hits: sessionIds.map((sessionId) => ({ sessionId })) });

describe('the recall measure', () => {
  it('reads hits as sessions, each once, in the order of its first hit', () => {
    expect(sessionsOf(hits('a', 'a', 'b', 'a', 'c', 'b').hits)).toEqual(['a', 'b', 'c']);
  });

  it('ranks by the first answer session, counting sessions, not lines', async () => {
    const pages: Record<string, ReturnType<typeof hits>> = {
      first: hits('s1', 's1', 's2'),
      third: hits('x', 'x', 'x', 'y', 's3', 's1'),
      sixth: hits('a', 'b', 'c', 'd', 'e', 's1'),
      none: hits('a', 'b'),
    };
    const questions = Object.keys(pages).map((text) => ({ text, answers: ['s1', 's3'], shape: text }));
    const results = await askAll(async ({ query }) => pages[query] as ReturnType<typeof hits>, questions);
    expect(results.map((result) => result.rank)).toEqual([1, 3, 6, null]);
    const score = scoreRecall(results);
    expect(score.hit1).toBe(1 / 4);
    expect(score.recall5).toBe(2 / 4);
    expect(score.mrr).toBeCloseTo((1 + 1 / 3 + 1 / 6) / 4, 10);
    expect(score.found).toBe(1);
    expect(score.byShape.third).toMatchObject({ questions: 1, hit1: 0, recall5: 1 });
  });

  it('counts a question memd refuses as found nothing, and says why', async () => {
    const results = await askAll(async () => {
      throw new Error('the search query is not valid at position 3');
    }, [{ text: 'a, b', answers: ['s1'], shape: 'x' }]);
    expect(results[0]).toMatchObject({
      rank: null,
      sessions: [],
      error: 'the search query is not valid at position 3',
    });
    expect(scoreRecall(results)).toMatchObject({ hit1: 0, recall5: 0, mrr: 0, found: 0, refused: 1 });
  });

  it('asks with the limit given, and times each call', async () => {
    const asked: unknown[] = [];
    const results = await askAll(
      async (params) => {
        asked.push(params);
        return hits('s1');
      },
      [{ text: 'why', answers: ['s1'], shape: 'x' }],
      { limit: 7 },
    );
    expect(asked).toEqual([{ query: 'why', limit: 7 }]);
    expect(results[0]?.ms).toBeGreaterThanOrEqual(0);
  });

  it("takes a question's content words as unicode61 splits them, without question words", () => {
    expect(contentWords('why did test_invoice_rounds_totals only break some of the time?')).toEqual([
      'test',
      'invoice',
      'rounds',
      'totals',
      'break',
    ]);
    expect(orQuery("the inventory api couldn't reach /v1/stock")).toBe(
      'inventory OR api OR couldn OR reach OR v1 OR stock',
    );
  });
});
