import { describe, expect, it } from 'vitest';
import { CLEAR_TOOL_USES, planCacheEdits } from '../../../../daemon/compaction/cache-edits.js';
import { priceFor } from '../../../../shared/transcript/models.js';
import { syntheticConversation } from '../../../helpers/compact.js';

describe('cache-preserving clearing', () => {
  it('clears all but the most recent results, and prices the cache it keeps', () => {
    const messages = syntheticConversation(12, 8_000);
    const price = priceFor('claude-sonnet-4-5');
    const plan = planCacheEdits(messages, { keep: 5, triggerTokens: 150_000, price });
    expect(plan.clear.map((item) => item.toolUseId)).toEqual(
      Array.from({ length: 7 }, (_, n) => `toolu_${String(n).padStart(6, '0')}`),
    );
    expect(plan.freedTokens).toBe(7 * 2_000);
    expect(plan.withCacheEdits.rewrittenTokens).toBe(0);
    expect(plan.withPlainClearing.rewrittenTokens).toBeGreaterThan(0);
    expect(plan.withPlainClearing.cachedTokens + plan.withPlainClearing.rewrittenTokens).toBe(
      plan.withCacheEdits.cachedTokens,
    );
    expect(plan.savedUsd?.ttl1h).toBeGreaterThan(plan.savedUsd?.ttl5m ?? Infinity);
    expect(plan.contextManagement).toEqual({
      edits: [
        {
          type: CLEAR_TOOL_USES,
          trigger: { type: 'input_tokens', value: 150_000 },
          keep: { type: 'tool_uses', value: 5 },
          clear_at_least: { type: 'input_tokens', value: 14_000 },
        },
      ],
    });
  });

  it('leaves excluded tools alone and clears nothing when few results exist', () => {
    const messages = syntheticConversation(8, 1_000, 'Read');
    expect(planCacheEdits(messages, { excludeTools: ['Read'], triggerTokens: 1, price: null })).toMatchObject({
      clear: [],
      freedTokens: 0,
      savedUsd: null,
    });
    expect(planCacheEdits(syntheticConversation(3), { triggerTokens: 1, price: null }).clear).toEqual([]);
  });
});
