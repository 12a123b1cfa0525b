import { describe, expect, it } from 'vitest';
import { activeConversation } from '../../../../shared/transcript/conversation.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';

type Raw = Record<string, unknown>;

/** Parses raw lines as one file, each line 100 bytes after the previous. */
function file(...lines: Raw[]): IndexedEntry[] {
  return lines.map((line, index) => {
    const entry = parseEntry(line, index * 100, 99);
    if (!entry) throw new Error('not an object');
    return entry;
  });
}

const user = (uuid: string, parentUuid: string | null, content: unknown = 'hi'): Raw => ({
  type: 'user',
  uuid,
  parentUuid,
  message: { role: 'user', content },
});
const assistant = (
  uuid: string,
  parentUuid: string | null,
  id: string,
  content: unknown[] = [{ type: 'text', text: 'ok' }],
): Raw => ({
  type: 'assistant',
  uuid,
  parentUuid,
  requestId: `req_${id}`,
  message: { id, model: 'claude-opus-4-8', content, usage: { input_tokens: 1, output_tokens: 1 } },
});
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: {} });
const toolResult = (id: string) => [{ type: 'tool_result', tool_use_id: id, content: 'r' }];
const boundary = (uuid: string, logicalParentUuid: string, preservedSegment?: Raw): Raw => ({
  type: 'system',
  subtype: 'compact_boundary',
  uuid,
  parentUuid: null,
  logicalParentUuid,
  compactMetadata: { trigger: 'auto', preTokens: 100, ...(preservedSegment ? { preservedSegment } : {}) },
});

const uuids = (entries: IndexedEntry[]) => entries.map((entry) => entry.uuid);

describe('activeConversation', () => {
  it('follows parentUuid from the newest entry and skips bookkeeping lines', () => {
    const entries = file(
      { type: 'queue-operation', operation: 'enqueue' },
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      { type: 'last-prompt', leafUuid: 'a1', lastPrompt: 'hi' },
      { type: 'mode', mode: 'default' },
    );
    const active = activeConversation(entries);
    expect(uuids(active.entries)).toEqual(['u1', 'a1']);
    expect(active.leaf?.uuid).toBe('a1');
    expect(active.end).toBe('root');
    expect(active.boundary).toBeNull();
  });

  it('drops the branch a rewind left behind', () => {
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      user('u2', 'a1', 'first try'),
      assistant('a2', 'u2', 'm2'),
      user('u2b', 'a1', 'second try'),
      assistant('a2b', 'u2b', 'm3'),
    );
    expect(uuids(activeConversation(entries).entries)).toEqual(['u1', 'a1', 'u2b', 'a2b']);
  });

  it('brings back the parallel tool calls and results the path does not pass through', () => {
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'reading' }]),
      assistant('a2', 'a1', 'm1', [toolUse('t1')]),
      assistant('a3', 'a2', 'm1', [toolUse('t2')]),
      user('r2', 'a3', toolResult('t2')),
      user('r1', 'a2', toolResult('t1')),
      assistant('a4', 'r1', 'm2'),
    );
    expect(uuids(activeConversation(entries).entries)).toEqual(['u1', 'a1', 'a2', 'a3', 'r2', 'r1', 'a4']);
  });

  it('starts at the last compact boundary on the path', () => {
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      boundary('b1', 'a1'),
      user('s1', 'b1', 'This session is being continued…'),
      assistant('a2', 's1', 'm2'),
    );
    const active = activeConversation(entries);
    expect(uuids(active.entries)).toEqual(['b1', 's1', 'a2']);
    expect(active.end).toBe('boundary');
    expect(active.boundary?.uuid).toBe('b1');
  });

  it('splices a preserved segment in after the summary, before what followed it', () => {
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      user('u2', 'a1', 'kept prompt'),
      boundary('b1', 'u2', { headUuid: 'a1', anchorUuid: 's1', tailUuid: 'u2' }),
      user('s1', 'b1', 'summary'),
      { type: 'attachment', uuid: 'x1', parentUuid: 's1', attachment: { type: 'skill_listing', content: 'skills' } },
      assistant('a2', 'x1', 'm2'),
    );
    expect(uuids(activeConversation(entries).entries)).toEqual(['b1', 's1', 'a1', 'u2', 'x1', 'a2']);
  });

  it('stops at a parent that is not in the file', () => {
    const active = activeConversation(file(user('u5', 'gone'), assistant('a5', 'u5', 'm5')));
    expect(uuids(active.entries)).toEqual(['u5', 'a5']);
    expect(active.end).toBe('missing-parent');
  });

  it('stops on a cycle instead of looping', () => {
    const active = activeConversation(file(user('u1', 'a1'), assistant('a1', 'u1', 'm1')));
    expect(uuids(active.entries)).toEqual(['u1', 'a1']);
    expect(active.end).toBe('cycle');
  });

  it('never starts from or walks into a sidechain entry', () => {
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      { ...user('side1', 'a1'), isSidechain: true },
      user('u2', 'side1'),
    );
    const active = activeConversation(entries);
    expect(uuids(active.entries)).toEqual(['u2']);
    expect(active.end).toBe('missing-parent');
    const onlySidechain = activeConversation(file({ ...user('side1', null), isSidechain: true }));
    expect(onlySidechain).toEqual({ entries: [], leaf: null, boundary: null, end: 'empty', bridged: [] });
  });

  it('is empty for a file of bookkeeping lines only', () => {
    expect(activeConversation(file({ type: 'mode', mode: 'plan' })).end).toBe('empty');
    expect(activeConversation([]).entries).toEqual([]);
  });

  it('bridges a missing parent from file order when asked (a line lost from the middle of the file)', () => {
    // a2 (the call t1) is gone: r1's parent is missing, and the plain walk keeps r1 and a3 only.
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      user('u2', 'a1', 'read it'),
      user('r1', 'a2', toolResult('t1')),
      assistant('a3', 'r1', 'm3'),
    );
    expect(uuids(activeConversation(entries).entries)).toEqual(['r1', 'a3']);
    const bridged = activeConversation(entries, { bridgeBrokenChain: true });
    expect(uuids(bridged.entries)).toEqual(['u1', 'a1', 'u2', 'r1', 'a3']);
    expect(bridged.end).toBe('root');
    expect(bridged.bridged).toEqual(['r1']);
  });

  it('bridges a trimmed head to the start of what is left, and across a sidechain parent', () => {
    const trimmed = activeConversation(
      file(assistant('a0', 'gone', 'm0'), user('u5', 'gone2'), assistant('a5', 'u5', 'm5')),
      { bridgeBrokenChain: true },
    );
    expect(uuids(trimmed.entries)).toEqual(['a0', 'u5', 'a5']);
    expect(trimmed.end).toBe('missing-parent');
    expect(trimmed.bridged).toEqual(['u5']);
    const side = activeConversation(
      file(
        user('u1', null),
        assistant('a1', 'u1', 'm1'),
        { ...user('side1', 'a1'), isSidechain: true },
        user('u2', 'side1'),
      ),
      { bridgeBrokenChain: true },
    );
    expect(uuids(side.entries)).toEqual(['u1', 'a1', 'u2']);
  });

  it('bridges to a boundary and starts there', () => {
    const entries = file(
      user('u1', null),
      assistant('a1', 'u1', 'm1'),
      boundary('b1', 'a1'),
      user('s1', 'b1', 'summary'),
      assistant('a2', 'lost', 'm2'),
    );
    const active = activeConversation(entries, { bridgeBrokenChain: true });
    expect(uuids(active.entries)).toEqual(['b1', 's1', 'a2']);
    expect(active.end).toBe('boundary');
  });
});
