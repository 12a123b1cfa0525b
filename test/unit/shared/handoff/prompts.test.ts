import { describe, expect, it } from 'vitest';
import { userPromptsOf } from '../../../../shared/handoff/prompts.js';

const line = (entry: Record<string, unknown>) => JSON.stringify({ type: 'user', ...entry });

describe('userPromptsOf', () => {
  it('keeps what the user typed, in order, and leaves out meta entries, summaries, plumbing, interruptions and tool results', () => {
    const jsonl = [
      '{"type":"user","message":{"role":"user","content":"cut mid-line', // the read window's first line
      line({ message: { role: 'user', content: 'Never push to main.' } }),
      line({ isMeta: true, message: { role: 'user', content: 'Caveat: never mind' } }),
      line({ isCompactSummary: true, message: { role: 'user', content: 'Always summarised' } }),
      line({ message: { role: 'user', content: '<command-name>/compact</command-name>' } }),
      line({ message: { role: 'user', content: '[Request interrupted by user]' } }),
      line({ message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'never shown' }] } }),
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'I will always comply.' }] },
      }),
      line({ message: { role: 'user', content: [{ type: 'text', text: "Don't use regex." }] } }),
      '',
    ].join('\n');
    expect(userPromptsOf(jsonl)).toEqual(['Never push to main.', "Don't use regex."]);
  });
});
