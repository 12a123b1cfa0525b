import { describe, expect, it } from 'vitest';
import { askingSessionOf, DEFAULT_SEARCH_KINDS, SEARCH_KINDS } from '../../../../shared/protocol/search.js';
import { indexTexts, OwnCallBook, ownCallIds } from '../../../../shared/search/own-traffic.js';

const user = (content: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  message: { role: 'user', content },
  ...extra,
});
const assistant = (content: unknown) => ({ type: 'assistant', message: { role: 'assistant', content } });
const searchCall = {
  type: 'tool_use',
  id: 'toolu_memd1',
  name: 'mcp__memd__search_sessions',
  input: { query: 'refund retries', limit: 5 },
};
const bashCall = {
  type: 'tool_use',
  id: 'toolu_bash1',
  name: 'Bash',
  input: { command: 'memctl search refund retries' },
};
const memdResult = {
  type: 'tool_result',
  tool_use_id: 'toolu_memd1',
  content: [{ type: 'text', text: '1 hit for "refund retries": the refund worker retries 3 times' }],
};
const bashResult = { type: 'tool_result', tool_use_id: 'toolu_bash1', content: 'no hits' };
const none = () => false;

describe('memd kind', () => {
  it('is a kind that default searches leave out', () => {
    expect(SEARCH_KINDS).toContain('memd');
    expect(DEFAULT_SEARCH_KINDS).not.toContain('memd');
    expect(DEFAULT_SEARCH_KINDS).toEqual(SEARCH_KINDS.filter((kind) => kind !== 'memd'));
  });
});

describe('indexTexts', () => {
  it("indexes memd's MCP calls as kind memd, and a memctl Bash call as the user's", () => {
    expect(ownCallIds(assistant([searchCall, bashCall]))).toEqual(['toolu_memd1']);
    expect(indexTexts(assistant([searchCall]), none)).toEqual([
      { kind: 'memd', text: 'mcp__memd__search_sessions refund retries' },
    ]);
    expect(indexTexts(assistant([bashCall]), none)).toEqual([
      { kind: 'tool', text: 'Bash memctl search refund retries' },
    ]);
    expect(indexTexts(assistant([searchCall, bashCall]), none)).toEqual([
      { kind: 'tool', text: 'Bash memctl search refund retries' },
      { kind: 'memd', text: 'mcp__memd__search_sessions refund retries' },
    ]);
  });

  it("indexes the results of memd's calls as kind memd, the others' as outputs", () => {
    const isOwn = (id: string) => id === 'toolu_memd1';
    expect(indexTexts(user([memdResult]), isOwn)).toEqual([
      { kind: 'memd', text: '1 hit for "refund retries": the refund worker retries 3 times' },
    ]);
    expect(indexTexts(user([memdResult, bashResult]), isOwn)).toEqual([
      { kind: 'output', text: 'no hits' },
      { kind: 'memd', text: '1 hit for "refund retries": the refund worker retries 3 times' },
    ]);
    // Not known for memd's: an ordinary output.
    expect(indexTexts(user([memdResult]), none)).toEqual([
      { kind: 'output', text: '1 hit for "refund retries": the refund worker retries 3 times' },
    ]);
  });

  it('indexes Reads of the handoff and session memory as kind memd', () => {
    const handoff = {
      type: 'tool_use',
      id: 'toolu_r1',
      name: 'Read',
      input: { file_path: '/home/user/src/app/docs/handoff-context.md' },
    };
    const memory = {
      type: 'tool_use',
      id: 'toolu_r2',
      name: 'Read',
      input: { file_path: '/home/user/.claude/projects/-app/s1/session-memory/summary.md' },
    };
    const own = {
      type: 'tool_use',
      id: 'toolu_r3',
      name: 'Read',
      input: { file_path: '/home/user/src/app/src/refund.ts' },
    };
    expect(ownCallIds(assistant([handoff, memory, own]))).toEqual(['toolu_r1', 'toolu_r2']);
  });

  it("indexes the context memd's SessionStart hook gave as kind memd, and other hooks' not at all", () => {
    const attachment = (content: string[]) => ({
      type: 'attachment',
      attachment: { type: 'hook_additional_context', content, hookName: 'SessionStart', hookEvent: 'SessionStart' },
    });
    const memdContext =
      'memd: context for this session after "startup" (id 0a1b2c3d).\n\nrefund retries are capped at 3';
    expect(indexTexts(attachment([memdContext]), none)).toEqual([{ kind: 'memd', text: memdContext }]);
    expect(indexTexts(attachment(['Project notes: refund retries']), none)).toEqual([]);
    const meta = user(`<system-reminder>SessionStart hook additional context: ${memdContext}</system-reminder>`, {
      isMeta: true,
    });
    expect(indexTexts(meta, none)).toEqual([
      { kind: 'memd', text: `<system-reminder>SessionStart hook additional context: ${memdContext}</system-reminder>` },
    ]);
    // A prompt that quotes memd's head is still the user's.
    expect(indexTexts(user(`why did ${memdContext} say that`), none)[0]?.kind).toBe('prompt');
  });

  it('indexes what memd recalled for a prompt or a failure as kind memd (issue 33)', () => {
    const recalled = 'memd recall: passages from other sessions that may bear on this prompt.\n[1] refund retries';
    for (const hookEvent of ['UserPromptSubmit', 'PostToolUseFailure']) {
      const line = {
        type: 'attachment',
        attachment: { type: 'hook_additional_context', content: [recalled], hookName: hookEvent, hookEvent },
      };
      expect(indexTexts(line, none)).toEqual([{ kind: 'memd', text: recalled }]);
    }
  });

  it('leaves every other line as text.ts makes it', () => {
    expect(indexTexts(user('fix the refund retries'), none)).toEqual([
      { kind: 'prompt', text: 'fix the refund retries' },
    ]);
  });
});

describe('OwnCallBook', () => {
  it("knows a result for memd's by its call on an earlier line of the same file, within its bounds", () => {
    const book = new OwnCallBook();
    expect(book.texts('/p/a.jsonl', assistant([searchCall]))[0]?.kind).toBe('memd');
    expect(book.texts('/p/b.jsonl', user([memdResult]))[0]?.kind).toBe('output');
    expect(book.texts('/p/a.jsonl', user([memdResult]))[0]?.kind).toBe('memd');
    // The oldest ids go first.
    for (let index = 0; index < 100; index++)
      book.texts('/p/a.jsonl', assistant([{ ...searchCall, id: `toolu_${index}` }]));
    expect(book.texts('/p/a.jsonl', user([memdResult]))[0]?.kind).toBe('output');
    expect(book.texts('/p/a.jsonl', user([{ ...memdResult, tool_use_id: 'toolu_99' }]))[0]?.kind).toBe('memd');
    book.forget('/p/a.jsonl');
    expect(book.texts('/p/a.jsonl', user([{ ...memdResult, tool_use_id: 'toolu_99' }]))[0]?.kind).toBe('output');
  });
});

describe('askingSessionOf', () => {
  it("takes Claude Code's session id from the environment, and nothing else", () => {
    expect(askingSessionOf({ CLAUDE_CODE_SESSION_ID: 'cf9834e4-97c5-434d-84d9-f987c788a79e' })).toBe(
      'cf9834e4-97c5-434d-84d9-f987c788a79e',
    );
    expect(askingSessionOf({})).toBeUndefined();
    expect(askingSessionOf({ CLAUDE_CODE_SESSION_ID: '../../x' })).toBeUndefined();
  });
});
