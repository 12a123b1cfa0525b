/** What memd sends is checked against the protocol's result schemas before the extension reads it. */
import { describe, expect, it } from 'vitest';
import {
  InvalidAnswer,
  parseCompaction,
  parseHandoff,
  parseMemorySummary,
  parseSession,
  parseSessionList,
  parseSessionUpdated,
  parseThresholdCrossed,
} from '../../../../client/vscode/src/validate.js';
import { sampleSession, threshold } from './sample.js';

describe('parseSession', () => {
  it('passes a session as memd reports it', () => {
    const session = sampleSession();
    expect(parseSession(session)).toEqual(session);
    expect(parseSessionUpdated(session)).toEqual(session);
  });

  it('keeps fields a newer memd adds', () => {
    const session = { ...sampleSession(), addedLater: { x: 1 }, threshold: { ...threshold(1), addedLater: true } };
    expect(parseSession(session)).toEqual(session);
  });

  it('passes a threshold in either mode, and reads one without a mode (a memd before reactive mode) as threshold mode', () => {
    for (const autoCompactMode of ['threshold', 'reactive'] as const) {
      const session = { ...sampleSession(), threshold: { ...threshold(1), autoCompactMode } };
      expect(parseSession(session)).toEqual(session);
    }
    const { autoCompactMode: _, ...older } = threshold(1);
    expect(parseSession({ ...sampleSession(), threshold: older }).threshold.autoCompactMode).toBe('threshold');
  });

  it.each([
    ['not an object', 'a string', 'result must be an object, got string'],
    [
      'a compaction mode memd does not have',
      { ...sampleSession(), threshold: { ...threshold(1), autoCompactMode: 'sometimes' } },
      'result.threshold.autoCompactMode must be one of threshold, reactive',
    ],
    [
      'an empty id',
      { ...sampleSession(), sessionId: '' },
      'result.sessionId must be a string of at least 1 characters',
    ],
    [
      'a state memd does not have',
      { ...sampleSession(), threshold: { ...threshold(1), state: 'melting' } },
      'result.threshold.state must be one of ok, warning, error, autocompact, blocking',
    ],
    [
      'a percentage that is not a number',
      { ...sampleSession(), threshold: { ...threshold(1), percentUsed: 'NaN' } },
      'result.threshold.percentUsed must be a number, got string',
    ],
    ['no usage', { ...sampleSession(), usage: undefined }, 'result.usage must be an object, got undefined'],
    [
      'no session memory',
      { ...sampleSession(), sessionMemory: null },
      'result.sessionMemory must be an object, got null',
    ],
    ['a title that is a number', { ...sampleSession(), title: 7 }, 'result.title must be a string, got number'],
    [
      'no sinceExtraction',
      { ...sampleSession(), sinceExtraction: undefined },
      'result.sinceExtraction must be an object, got undefined',
    ],
    [
      'a lock without its owner',
      { ...sampleSession(), sessionMemory: { extractedAt: null, lock: { owner: 7, expiresAt: 1 }, spentUsd: 0 } },
      'result.sessionMemory.lock.owner must be a string, got number',
    ],
  ])('refuses %s, naming the answer and the field', (_, value, message) => {
    expect(() => parseSession(value)).toThrow(InvalidAnswer);
    expect(() => parseSession(value)).toThrow(
      `memd's answer to sessions.get is not what this client reads: ${message}`,
    );
  });

  it('says when the session came in an event', () => {
    expect(() => parseSessionUpdated({ ...sampleSession(), title: 7 })).toThrow(
      "memd's session.updated event is not what this client reads: event.title must be",
    );
  });
});

describe('parseSessionList', () => {
  it('keeps the valid sessions of a page and says which were left out', () => {
    const good = sampleSession();
    const { list, invalid } = parseSessionList({
      sessions: [good, { sessionId: 'x' }],
      total: 2,
      hidden: 0,
      nextCursor: 'c1',
    });
    expect(list.sessions).toEqual([good]);
    expect(list.nextCursor).toBe('c1');
    expect(invalid).toEqual([
      "memd's answer to sessions.list is not what this client reads: result.sessions[1].project must be a string, got undefined",
    ]);
  });

  it('refuses a page without sessions or with a bad cursor', () => {
    expect(() => parseSessionList({ total: 0, hidden: 0, nextCursor: null })).toThrow('result.sessions must be');
    expect(() => parseSessionList({ sessions: [], total: 0, hidden: 0, nextCursor: 3 })).toThrow(
      'result.nextCursor must be',
    );
  });
});

describe('events and answers', () => {
  it('checks a threshold crossing', () => {
    const event = {
      sessionId: 's',
      from: 'ok',
      to: 'autocompact',
      contextTokens: 170_110,
      threshold: threshold(170_110, 'autocompact'),
    };
    expect(parseThresholdCrossed(event)).toEqual(event);
    expect(() => parseThresholdCrossed({ ...event, to: 'full' })).toThrow(
      "memd's session.thresholdCrossed event is not what this client reads: event.to must be one of",
    );
  });

  it('checks a session memory, a handoff and a compaction', () => {
    const summary = {
      sessionId: 's',
      path: '/p/summary.md',
      text: null,
      lastUuid: null,
      extractedAt: null,
      summarizer: null,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: null,
    };
    expect(parseMemorySummary(summary)).toEqual(summary);
    expect(() => parseMemorySummary({ ...summary, text: 1 })).toThrow(
      "memd's answer to memory.summary is not what this client reads: result.text must be a string, got number",
    );

    const handoff = {
      sessionId: 's',
      cwd: '/w',
      path: '/w/docs/handoff-context.md',
      partial: false,
      summarizer: 'offline',
      generatedAt: '2026-12-02T10:26:06.033Z',
      pinned: '',
      facts: { git: null, filesTouched: [], commands: [], failing: [], todos: [], constraints: [], ruledOut: [] },
      written: true,
      gitignoreUpdated: true,
      skipped: [],
      text: '# Handoff',
    };
    expect(parseHandoff(handoff)).toEqual(handoff);
    expect(() =>
      parseHandoff({ ...handoff, facts: { ...handoff.facts, git: { branch: null, porcelain: [3], diffStat: null } } }),
    ).toThrow('result.facts.git.porcelain[0] must be a string');

    const compaction = {
      sessionId: 's',
      method: 'summary',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'the summary' }] }],
      boundary: null,
      summary: 'the summary',
      preTokens: 10,
      postTokens: 5,
      keptFromUuid: null,
      actions: [{ kind: 'summarized', id: 'u1', tokensBefore: 10, tokensAfter: 5 }],
      lost: { userMessages: [], filePaths: [], identifiers: [], errors: [] },
    };
    expect(parseCompaction(compaction)).toEqual(compaction);
    expect(() => parseCompaction({ ...compaction, lost: { ...compaction.lost, errors: [{}] } })).toThrow(
      'result.lost.errors[0] must be a string',
    );
    expect(() => parseCompaction({ ...compaction, actions: [{}] })).toThrow('result.actions[0].kind must be');
    expect(() => parseCompaction({ ...compaction, fallback: { from: 'summary', reason: 1 } })).toThrow(
      'result.fallback.reason must be a string',
    );
    expect(() => parseCompaction({ ...compaction, messages: [{ role: 'system', content: '' }] })).toThrow(
      'result.messages[0].role must be one of user, assistant',
    );
  });
});
