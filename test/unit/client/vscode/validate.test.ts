/** What memd sends is checked field by field before the extension reads it. */
import { describe, expect, it } from 'vitest';
import { InvalidAnswer, parseCompaction, parseHandoff, parseMemorySummary, parseSession, parseSessionDetail, parseSessionList, parseThresholdCrossed } from '../../../../client/vscode/src/validate.js';
import { sampleSession, threshold } from './sample.js';

describe('parseSession', () => {
  it('passes a session as memd reports it', () => {
    const session = sampleSession();
    expect(parseSession(session)).toBe(session);
    expect(parseSessionDetail(session)).toBe(session);
  });

  it('passes a threshold in either mode, and one without a mode (a memd before reactive mode)', () => {
    for (const autoCompactMode of ['threshold', 'reactive', undefined]) {
      const session = { ...sampleSession(), threshold: { ...threshold(1), autoCompactMode } };
      expect(parseSession(session)).toBe(session);
    }
  });

  it.each([
    ['not an object', 'a string', 'sessionId'],
    ['a compaction mode memd does not have', { ...sampleSession(), threshold: { ...threshold(1), autoCompactMode: 'sometimes' } }, 'threshold.autoCompactMode'],
    ['an empty id', { ...sampleSession(), sessionId: '' }, 'sessionId'],
    ['a state memd does not have', { ...sampleSession(), threshold: { ...threshold(1), state: 'melting' } }, 'threshold.state'],
    ['a percentage that is not a number', { ...sampleSession(), threshold: { ...threshold(1), percentUsed: 'NaN' } }, 'threshold.percentUsed'],
    ['no usage', { ...sampleSession(), usage: undefined }, 'usage.total.costUsd'],
    ['no session memory', { ...sampleSession(), sessionMemory: null }, 'sessionMemory.extractedAt'],
    ['a title that is a number', { ...sampleSession(), title: 7 }, 'title'],
  ])('refuses %s, naming the field', (_, value, field) => {
    expect(() => parseSession(value)).toThrow(InvalidAnswer);
    expect(() => parseSession(value)).toThrow(`memd sent a session without a valid ${field}`);
  });

  it('asks more of a session whose details are shown', () => {
    const { sinceExtraction: _, ...partial } = sampleSession();
    expect(parseSession(partial)).toBe(partial);
    expect(() => parseSessionDetail(partial)).toThrow('sinceExtraction.toolCalls');
    expect(() => parseSessionDetail({ ...sampleSession(), sessionMemory: { extractedAt: null, lock: { owner: 7 }, spentUsd: 0 } })).toThrow('sessionMemory.lock');
  });
});

describe('parseSessionList', () => {
  it('keeps the valid sessions of a page and says which were left out', () => {
    const good = sampleSession();
    const { list, invalid } = parseSessionList({ sessions: [good, { sessionId: 'x' }], total: 2, hidden: 0, nextCursor: 'c1' });
    expect(list.sessions).toEqual([good]);
    expect(list.nextCursor).toBe('c1');
    expect(invalid).toEqual(['memd sent a session without a valid project']);
  });

  it('refuses a page without sessions or with a bad cursor', () => {
    expect(() => parseSessionList({ nextCursor: null })).toThrow('sessions');
    expect(() => parseSessionList({ sessions: [], nextCursor: 3 })).toThrow('nextCursor');
  });
});

describe('events and answers', () => {
  it('checks a threshold crossing', () => {
    const event = { sessionId: 's', from: 'ok', to: 'autocompact', contextTokens: 170_110, threshold: threshold(170_110, 'autocompact') };
    expect(parseThresholdCrossed(event)).toBe(event);
    expect(() => parseThresholdCrossed({ ...event, to: 'full' })).toThrow('to');
  });

  it('checks a session memory, a handoff and a compaction', () => {
    const summary = { sessionId: 's', path: '/p/summary.md', text: null, lastUuid: null, extractedAt: null, summarizer: null, inputTokens: 0, outputTokens: 0, costUsd: null };
    expect(parseMemorySummary(summary)).toBe(summary);
    expect(() => parseMemorySummary({ ...summary, text: 1 })).toThrow('text');

    const handoff = {
      sessionId: 's',
      cwd: '/w',
      path: '/w/docs/handoff-context.md',
      partial: false,
      summarizer: 'offline',
      pinned: '',
      gitignoreUpdated: true,
      facts: { git: null, filesTouched: [], commands: [], failing: [] },
    };
    expect(parseHandoff(handoff)).toBe(handoff);
    expect(() => parseHandoff({ ...handoff, facts: { ...handoff.facts, git: { porcelain: [3] } } })).toThrow('facts.git');

    const compaction = {
      sessionId: 's',
      method: 'summary',
      messages: [],
      preTokens: 10,
      postTokens: 5,
      keptFromUuid: null,
      actions: [{ kind: 'summarized' }],
      lost: { userMessages: [], filePaths: [], identifiers: [], errors: [] },
    };
    expect(parseCompaction(compaction)).toBe(compaction);
    expect(() => parseCompaction({ ...compaction, lost: { ...compaction.lost, errors: [{}] } })).toThrow('lost.errors');
    expect(() => parseCompaction({ ...compaction, actions: [{}] })).toThrow('actions');
    expect(() => parseCompaction({ ...compaction, fallback: { reason: 1 } })).toThrow('fallback');
  });
});
