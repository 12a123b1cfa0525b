import { describe, expect, it } from 'vitest';
import { attachmentTexts, estimateTokens, measureEntry, roughTokens } from '../../../../shared/transcript/tokens.js';

describe('roughTokens', () => {
  it('divides by four and rounds half up, as Claude Code does', () => {
    expect(roughTokens(0)).toBe(0);
    expect(roughTokens(1)).toBe(0);
    expect(roughTokens(2)).toBe(1);
    expect(roughTokens(177)).toBe(44);
    expect(roughTokens(178)).toBe(45);
  });

  it('keeps the rounded-up variant for limit checks', () => {
    expect(estimateTokens(177)).toBe(45);
    expect(estimateTokens(176)).toBe(44);
  });
});

describe('measureEntry', () => {
  it('measures string content as its text, not its JSON', () => {
    const prompt = 'Also log a warning whenever a duplicate key is replayed.';
    expect(measureEntry({ type: 'user', message: { role: 'user', content: prompt } })).toEqual({
      chars: 56,
      tokens: 14,
    });
  });

  it('rounds each block on its own and sums', () => {
    const entry = {
      type: 'assistant',
      message: {
        content: [
          { type: 'text', text: 'abcdef' }, // 6 → 2 (1.5 rounds up)
          { type: 'thinking', thinking: 'abcde', signature: 'sig' }, // 5 → 1
          { type: 'tool_use', id: 't', name: 'Read', input: { file_path: '/a' } }, // 'Read{"file_path":"/a"}' 22 → 6
        ],
      },
    };
    expect(measureEntry(entry)).toEqual({ chars: 6 + 5 + 22, tokens: 2 + 1 + 6 });
  });

  it('measures tool results by their content, images flat', () => {
    const entry = {
      type: 'user',
      message: {
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'x'.repeat(400) },
          {
            type: 'tool_result',
            tool_use_id: 't2',
            content: [
              { type: 'text', text: 'y'.repeat(40) },
              { type: 'image', source: { data: 'z'.repeat(100_000) } },
            ],
          },
        ],
      },
    };
    expect(measureEntry(entry)).toEqual({ chars: 400 + 40 + 8_000, tokens: 100 + 10 + 2_000 });
  });

  it('measures an unknown block by its JSON', () => {
    const block = { type: 'server_tool_use', id: 'x', name: 'web_search', input: {} };
    expect(measureEntry({ type: 'assistant', message: { content: [block] } }).chars).toBe(JSON.stringify(block).length);
  });

  it('measures nothing for bookkeeping and system entries', () => {
    for (const type of ['system', 'last-prompt', 'mode', 'file-history-snapshot', 'summary', 'custom-title']) {
      expect(measureEntry({ type, message: { content: 'text that is not sent' }, content: 'x' })).toEqual({
        chars: 0,
        tokens: 0,
      });
    }
  });
});

describe('attachments', () => {
  it('renders hook additional context as the system reminder Claude Code sends', () => {
    const attachment = {
      type: 'hook_additional_context',
      content: [
        'Project notes: amounts are integer cents; run tests with python3 -m unittest. (session source: resume)',
      ],
      hookName: 'SessionStart',
      toolUseID: 'SessionStart',
      hookEvent: 'SessionStart',
    };
    const [text] = attachmentTexts(attachment);
    expect(text).toBe(
      '<system-reminder>\nSessionStart hook additional context: ' +
        'Project notes: amounts are integer cents; run tests with python3 -m unittest. (session source: resume)' +
        '\n</system-reminder>',
    );
    expect(measureEntry({ type: 'attachment', attachment })).toEqual({ chars: 177, tokens: 44 });
  });

  it('sends nothing for a hook success without content or from another event', () => {
    const silent = {
      type: 'hook_success',
      hookEvent: 'SessionStart',
      hookName: 'SessionStart:resume',
      content: '',
      stdout: '{"a":1}',
    };
    expect(attachmentTexts(silent)).toEqual([]);
    expect(attachmentTexts({ type: 'hook_success', hookEvent: 'Stop', hookName: 'Stop', content: 'done' })).toEqual([]);
    const said = { type: 'hook_success', hookEvent: 'UserPromptSubmit', hookName: 'UserPromptSubmit', content: 'ok' };
    expect(attachmentTexts(said)).toEqual(['<system-reminder>\nUserPromptSubmit hook success: ok\n</system-reminder>']);
  });

  it('sends only the response fields of an async hook response', () => {
    const attachment = {
      type: 'async_hook_response',
      stdout: 'x'.repeat(5_000),
      response: { systemMessage: 'hello', hookSpecificOutput: { additionalContext: 'ctx' } },
    };
    expect(attachmentTexts(attachment)).toEqual(['hello', 'ctx']);
  });

  it('measures other kinds by their JSON', () => {
    const attachment = { type: 'task_reminder', content: [{ id: '1', subject: 'Write tests' }], itemCount: 1 };
    expect(attachmentTexts(attachment)).toEqual([JSON.stringify(attachment)]);
  });
});
