import { describe, expect, it } from 'vitest';
import { transcriptTailText } from '../../../../shared/handoff/tail.js';
import { CUT_VALUE } from '../../../../shared/transcript/depth.js';

const line = (value: unknown) => JSON.stringify(value);

describe('transcriptTailText', () => {
  const lines = [
    line({ type: 'user', message: { role: 'user', content: 'Fix the "parser".\nPlease.' } }),
    line({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'On it.' },
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } },
        ],
      },
    }),
    line({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Exit code 1\nboom', is_error: true }],
      },
    }),
    line({
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'ok' }, { type: 'image' }] },
        ],
      },
    }),
    line({ type: 'system', subtype: 'compact_boundary' }),
    line({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'Summary: parser work.' } }),
    line({ type: 'file-history-snapshot', snapshot: {} }),
    'not json at all',
    line([1, 2]),
  ];

  it('renders each line the model sees, JSON escapes undone; bookkeeping lines left out, others kept as they are', () => {
    expect(transcriptTailText(lines.join('\n'), false)).toBe(
      [
        'USER: Fix the "parser".\nPlease.',
        'ASSISTANT: On it.',
        'TOOL CALL Bash: {"command":"npm test"}',
        'TOOL RESULT (error): Exit code 1\nboom',
        'TOOL RESULT: ok\n[image]',
        '--- compaction ---',
        'COMPACTION SUMMARY: Summary: parser work.',
        'not json at all',
      ].join('\n\n'),
    );
  });

  it('drops the cut first line of a window that starts inside a line', () => {
    const raw = `t": "cut"}\n${lines[0]}\n`;
    expect(transcriptTailText(raw, true)).toBe('USER: Fix the "parser".\nPlease.');
    expect(transcriptTailText(raw, false).startsWith('t": "cut"}')).toBe(true);
  });

  it('renders a tool call whose input nests 10,000 deep, cut, and the lines around it', () => {
    const deep = `${'{"k":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const call = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Edit","input":{"edits":${deep}}}]}}`;
    const text = transcriptTailText(
      [lines[0], call, line({ type: 'assistant', message: { role: 'assistant', content: 'Done.' } })].join('\n'),
      false,
    );
    expect(text).toContain('TOOL CALL Edit: {"edits":{"k":');
    expect(text).toContain(CUT_VALUE);
    expect(text.endsWith('ASSISTANT: Done.')).toBe(true);
  });
});
