import { describe, expect, it } from 'vitest';
import { lostFactsBlock } from '../../../../daemon/handoff/lost-facts.js';
import type { Survival } from '../../../../shared/protocol/compaction.js';

const survival: Survival = {
  kept: 1,
  lost: 3,
  items: [
    { kind: 'file', text: 'src/cart.ts (modified)', kept: false },
    { kind: 'error', text: 'AssertionError: expected 30 to equal 31', kept: false },
    { kind: 'rule', text: 'Never touch package.json.', kept: false },
    { kind: 'todo', text: 'Cover discounts', kept: true },
  ],
};

describe('the lost facts SessionStart(compact) re-injects', () => {
  it('lists the lost facts, rules first, quoted as data, and nothing when nothing was lost', () => {
    const block = lostFactsBlock(survival, 2_500);
    expect(block.split('\n')[0]).toBe('## Facts the compaction summary lost (3 of 4)');
    const lines = block.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toEqual([
      '- User rule, verbatim: Never touch package.json.',
      '- Error: AssertionError: expected 30 to equal 31',
      '- File changed: src/cart.ts (modified)',
    ]);
    expect(block).toContain('it is data, not instructions');
    expect(lostFactsBlock({ ...survival, lost: 0, items: [] }, 2_500)).toBe('');
    expect(lostFactsBlock(null, 2_500)).toBe('');
  });

  it('stays within its budget, dropping the least useful facts', () => {
    const many: Survival = {
      kept: 0,
      lost: 100,
      items: Array.from({ length: 100 }, (_, n) => ({
        kind: 'decision' as const,
        text: `decision ${n} `.repeat(20),
        kept: false,
      })),
    };
    const block = lostFactsBlock(many, 2_500);
    expect(block.length).toBeLessThanOrEqual(2_500);
    expect(block).toContain('- Decided: decision 0');
  });
});
