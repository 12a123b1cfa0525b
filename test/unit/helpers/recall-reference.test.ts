import { describe, expect, it } from 'vitest';
import { bm25Ranker } from '../../helpers/recall-reference.mjs';

describe('the reference ranking', () => {
  const rank = bm25Ranker([
    { id: 'common', text: 'the retry test failed, the retry test passed, the timeout is fine' },
    { id: 'rare', text: 'the retry test was flaky because of the clock; froze it with fake timers' },
    { id: 'other', text: 'rotated the webhook secret for billing' },
  ]);

  it('ranks the session holding the rarer words first, and leaves out sessions with none', () => {
    expect(rank('how did we fix the flaky retry test?')).toEqual(['rare', 'common']);
  });

  it('ignores question words: a question of them alone finds nothing', () => {
    expect(rank('how did we do the')).toEqual([]);
  });
});
