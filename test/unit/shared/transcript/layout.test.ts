import { describe, expect, it } from 'vitest';
import { classifyTranscript, isIgnoredPath } from '../../../../shared/transcript/layout.js';

const ROOT = '/home/u/.claude/projects';
const at = (rel: string) => `${ROOT}/${rel}`;

describe('classifyTranscript', () => {
  it('names a main transcript by its project and session', () => {
    expect(classifyTranscript(ROOT, at('-home-u-app/0a1b.jsonl'))).toEqual({
      path: at('-home-u-app/0a1b.jsonl'),
      project: '-home-u-app',
      sessionId: '0a1b',
      agentId: null,
      sessionFromEntries: false,
    });
  });

  it('names a sub-agent transcript as a sidechain of its session, with the bare agent id', () => {
    expect(classifyTranscript(ROOT, at('-home-u-app/0a1b/subagents/agent-a7f4.jsonl'))).toEqual({
      path: at('-home-u-app/0a1b/subagents/agent-a7f4.jsonl'),
      project: '-home-u-app',
      sessionId: '0a1b',
      agentId: 'a7f4',
      sessionFromEntries: false,
    });
  });

  it('names a 2.0.x top-level agent file a sidechain whose session its entries say', () => {
    expect(classifyTranscript(ROOT, at('-home-u-app/agent-5e1f9a.jsonl'))).toEqual({
      path: at('-home-u-app/agent-5e1f9a.jsonl'),
      project: '-home-u-app',
      sessionId: 'agent-5e1f9a',
      agentId: '5e1f9a',
      sessionFromEntries: true,
    });
  });

  it.each([
    ['a file at the root', 'x.jsonl'],
    ['a persisted tool result', '-p/0a1b/tool-results/t1.txt'],
    ['a json tool result', '-p/0a1b/tool-results/t1.jsonl'],
    ['sub-agent metadata', '-p/0a1b/subagents/agent-a.meta.json'],
    ['a memory file', '-p/memory/MEMORY.md'],
    ['session memory', '-p/0a1b/session-memory/summary.md'],
    ['a bare .jsonl name', '-p/.jsonl'],
    ['a file too deep', '-p/0a1b/subagents/x/agent-a.jsonl'],
    ['a path outside the root', '../elsewhere/-p/s.jsonl'],
  ])('is not a transcript: %s', (_what, rel) => {
    expect(classifyTranscript(ROOT, `${ROOT}/${rel}`)).toBeNull();
  });
});

describe('isIgnoredPath', () => {
  it.each([
    ['the root', '', true],
    ['a project dir', '-p', true],
    ['a session dir', '-p/0a1b', true],
    ['a subagents dir', '-p/0a1b/subagents', true],
    ['a main transcript', '-p/0a1b.jsonl', false],
    ['a sub-agent transcript', '-p/0a1b/subagents/agent-a.jsonl', false],
  ])('keeps %s', (_what, rel, isDir) => {
    expect(isIgnoredPath(ROOT, rel === '' ? ROOT : at(rel), isDir)).toBe(false);
    expect(isIgnoredPath(ROOT, rel === '' ? ROOT : at(rel), undefined)).toBe(false);
  });

  it.each([
    ['a tool-results dir', '-p/0a1b/tool-results', true],
    ['a session-memory dir', '-p/0a1b/session-memory', true],
    ['the memory dir', '-p/memory', true],
    ['a file at the root', 'notes.txt', false],
    ['a non-transcript file in a project', '-p/notes.txt', false],
    ['a subagents file that is a dir', '-p/0a1b/subagents/agent-a.jsonl', true],
    ['sub-agent metadata', '-p/0a1b/subagents/agent-a.meta.json', false],
    ['anything deeper', '-p/0a1b/subagents/x/y', true],
    ['a path outside the root', '../x', true],
  ])('skips %s', (_what, rel, isDir) => {
    expect(isIgnoredPath(ROOT, at(rel), isDir)).toBe(true);
  });
});

describe('a project folder CLAUDE_CODE_PROJECT_DIR_NAME renamed (issue 31)', () => {
  it('reads its transcripts and sub-agents under the folder name as given', () => {
    expect(classifyTranscript(ROOT, at('shop-main/0a1b.jsonl'))).toMatchObject({
      project: 'shop-main',
      sessionId: '0a1b',
      agentId: null,
    });
    expect(classifyTranscript(ROOT, at('shop-main/0a1b/subagents/agent-a7f4.jsonl'))).toMatchObject({
      project: 'shop-main',
      sessionId: '0a1b',
      agentId: 'a7f4',
    });
  });
});
