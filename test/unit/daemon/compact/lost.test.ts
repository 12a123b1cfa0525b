import { describe, expect, it } from 'vitest';
import { keyErrorLine, lostItems } from '../../../../daemon/compact/lost.js';
import { toMessageParams, type ConversationMessage } from '../../../../daemon/compact/messages.js';
import { syntheticConversation } from '../../../helpers/compact.js';

const summary = (text: string): ConversationMessage => ({ role: 'user', content: [{ type: 'text', text }], uuids: ['s'], messageId: null, isPrompt: false, isSummary: true });

describe('what a compaction lost', () => {
  it('names the user messages, paths and identifiers that appear nowhere after', () => {
    const before = syntheticConversation(3);
    const after = toMessageParams([summary('Worked on /src/module_0.py and `handler_0`. Request 1: look at /src/module_1.py and fix `handler_1`')]);
    const lost = lostItems(before, after);
    expect(lost.userMessages).toEqual(['Request 0: look at /src/module_0.py and fix `handler_0`', 'Request 2: look at /src/module_2.py and fix `handler_2`']);
    expect(lost.filePaths).toEqual(['/src/module_2.py']);
    expect(lost.identifiers).toEqual(['handler_2']);
    expect(lost.errors).toEqual([]);
  });

  it('reports the key line of failed tool results, and nothing when all is kept', () => {
    const before: ConversationMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'run the tests' }], uuids: ['u'], messageId: null, isPrompt: true, isSummary: false },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Edit', input: { file_path: '/app/pay.py', new_string: 'def remember_key(key):\n    pass' } }], uuids: ['a'], messageId: 'm', isPrompt: false, isSummary: false },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', is_error: true, content: 'running\nAssertionError: expected 2 charges\n' }], uuids: ['r'], messageId: null, isPrompt: false, isSummary: false },
    ];
    expect(keyErrorLine('running\nAssertionError: expected 2 charges\n')).toBe('AssertionError: expected 2 charges');
    const lost = lostItems(before, toMessageParams([summary('nothing')]));
    expect(lost).toEqual({ userMessages: ['run the tests'], filePaths: ['/app/pay.py'], identifiers: ['remember_key'], errors: ['AssertionError: expected 2 charges'] });
    expect(lostItems(before, toMessageParams(before))).toEqual({ userMessages: [], filePaths: [], identifiers: [], errors: [] });
  });
});
