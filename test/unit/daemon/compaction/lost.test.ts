import { describe, expect, it } from 'vitest';
import { lostItems } from '../../../../daemon/compaction/lost.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { errorKeyLine } from '../../../../daemon/transcripts/facts.js';
import { buildMessages, type ConversationMessage, toMessageParams } from '../../../../daemon/transcripts/messages.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { ingestFixture, syntheticConversation } from '../../../helpers/compact.js';

const summary = (text: string): ConversationMessage => ({
  role: 'user',
  content: [{ type: 'text', text }],
  uuids: ['s'],
  messageId: null,
  isPrompt: false,
  isSummary: true,
});

/** A user entry as loaded from a transcript; only the fields messages and lost read. */
const userEntry = (uuid: string, content: string, isMeta = false): LoadedEntry => ({
  entry: { type: 'user', uuid, isMeta, isCompactSummary: false, messageId: null } as IndexedEntry,
  raw: { type: 'user', uuid, message: { role: 'user', content } },
});

describe('what a compaction lost', () => {
  it('names the user messages, paths and identifiers that appear nowhere after', () => {
    const before = syntheticConversation(3);
    const after = toMessageParams([
      summary('Worked on /src/module_0.py and `handler_0`. Request 1: look at /src/module_1.py and fix `handler_1`'),
    ]);
    const lost = lostItems(before, after);
    expect(lost.userMessages).toEqual([
      'Request 0: look at /src/module_0.py and fix `handler_0`',
      'Request 2: look at /src/module_2.py and fix `handler_2`',
    ]);
    expect(lost.filePaths).toEqual(['/src/module_2.py']);
    expect(lost.identifiers).toEqual(['handler_2']);
    expect(lost.errors).toEqual([]);
  });

  it('reports the key line of failed tool results, and nothing when all is kept', () => {
    const before: ConversationMessage[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: 'run the tests' }],
        uuids: ['u'],
        messageId: null,
        isPrompt: true,
        isSummary: false,
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 't',
            name: 'Edit',
            input: { file_path: '/app/pay.py', new_string: 'def remember_key(key):\n    pass' },
          },
        ],
        uuids: ['a'],
        messageId: 'm',
        isPrompt: false,
        isSummary: false,
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't',
            is_error: true,
            content: 'running\nAssertionError: expected 2 charges\n',
          },
        ],
        uuids: ['r'],
        messageId: null,
        isPrompt: false,
        isSummary: false,
      },
    ];
    expect(errorKeyLine('running\nAssertionError: expected 2 charges\n')).toBe('AssertionError: expected 2 charges');
    const lost = lostItems(before, toMessageParams([summary('nothing')]));
    expect(lost).toEqual({
      userMessages: ['run the tests'],
      filePaths: ['/app/pay.py'],
      identifiers: ['remember_key'],
      errors: ['AssertionError: expected 2 charges'],
    });
    expect(lostItems(before, toMessageParams(before))).toEqual({
      userMessages: [],
      filePaths: [],
      identifiers: [],
      errors: [],
    });
  });

  it('keeps an error whose key line joins or clips lines when the result itself is kept', () => {
    const traceback =
      'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n    f()\nValueError: bad price';
    const longLine = `Error: ${'x'.repeat(600)}`;
    const before: ConversationMessage[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: 'go' }],
        uuids: ['u'],
        messageId: null,
        isPrompt: true,
        isSummary: false,
      },
      {
        role: 'assistant',
        content: ['t1', 't2', 't3'].map((id) => ({
          type: 'tool_use' as const,
          id,
          name: 'Bash',
          input: { command: 'python a.py' },
        })),
        uuids: ['a'],
        messageId: 'm',
        isPrompt: false,
        isSummary: false,
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', is_error: true, content: traceback },
          { type: 'tool_result', tool_use_id: 't2', is_error: true, content: longLine },
          { type: 'tool_result', tool_use_id: 't3', is_error: true, content: '' },
        ],
        uuids: ['r'],
        messageId: null,
        isPrompt: false,
        isSummary: false,
      },
    ];
    expect(lostItems(before, toMessageParams(before)).errors).toEqual([]);
    // An empty result has no key line to report.
    expect(lostItems(before, toMessageParams([summary('nothing')])).errors).toEqual([
      errorKeyLine(traceback),
      errorKeyLine(longLine),
    ]);
  });

  it("does not list Claude Code's command plumbing or meta messages as user messages", () => {
    const loaded = [
      userEntry('u1', 'real request'),
      // A slash command and its expansion, a meta message merged into the command's message.
      userEntry(
        'u2',
        '<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>pay.py</command-args>',
      ),
      userEntry('u3', 'Review the file named in the arguments, step by step.', true),
      userEntry('u4', '<command-args>x</command-args>'),
      // A local command: caveat (meta), name, output.
      userEntry(
        'u5',
        '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
        true,
      ),
      userEntry('u6', '<command-name>/model</command-name>\n<command-message>model</command-message>'),
      userEntry('u7', '<local-command-stdout>Set model to opus</local-command-stdout>'),
      userEntry('u8', 'Continue from where you left off.', true),
    ];
    const before = buildMessages(loaded, () => []);
    // The merge is why isPrompt alone cannot leave the meta messages out.
    expect(before).toHaveLength(1);
    expect(before[0]?.isPrompt).toBe(true);
    expect(lostItems(before, toMessageParams([summary('nothing')]), loaded).userMessages).toEqual(['real request']);
  });

  it('lists only what the user wrote in a real transcript with a local command', async () => {
    const fixture = await ingestFixture('interactive');
    try {
      const conversation = fixture.conversation();
      const listed = lostItems(conversation.messages, [], conversation.loaded).userMessages;
      expect(listed).toContain('Fix it so rows without a price are skipped, and add a regression test.');
      for (const message of listed) expect(message).not.toMatch(/^<(?:command-|local-command-)/);
    } finally {
      fixture.close();
    }
  });
});

describe('hook context', () => {
  it('is not a lost user message', () => {
    const before: ConversationMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nSessionStart hook additional context: rules\n</system-reminder>' },
          { type: 'text', text: 'do the thing' },
        ],
        uuids: ['h', 'u'],
        messageId: null,
        isPrompt: true,
        isSummary: false,
      },
    ];
    expect(lostItems(before, toMessageParams([])).userMessages).toEqual(['do the thing']);
  });
});
