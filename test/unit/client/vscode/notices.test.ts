/** The warning on a threshold crossing: only upwards, only for the sessions asked about. */
import { describe, expect, it } from 'vitest';
import type { ThresholdState } from '../../../../client/index.js';
import { NOTICE_ACTIONS, noticeFor, wanted } from '../../../../client/vscode/src/notices.js';
import type { ThresholdCrossedEvent } from '../../../../shared/protocol/events.js';
import { reactiveThreshold, sampleSession, threshold } from './sample.js';

const crossing = (from: ThresholdState, to: ThresholdState, tokens: number): ThresholdCrossedEvent => ({
  sessionId: '4be41908-9cd7-4f2f-8ce3-b4984d13a3f5',
  from,
  to,
  contextTokens: tokens,
  threshold: threshold(tokens, to),
});

describe('noticeFor', () => {
  it('warns on the way into warning and error with the room left', () => {
    expect(noticeFor(crossing('ok', 'warning', 150_000), sampleSession())?.message).toBe(
      'memd: Claude Code session invoice-service (4be41908) is at 90% used of auto-compact (17K tokens left).',
    );
    expect(noticeFor(crossing('warning', 'error', 160_000), null)?.message).toBe(
      'memd: Claude Code session 4be41908 is at 96% used of auto-compact (7K tokens left).',
    );
  });

  it('says what auto-compact and blocking mean, and offers the commands that help', () => {
    const auto = noticeFor(crossing('ok', 'autocompact', 170_110), sampleSession());
    expect(auto?.message).toBe(
      'memd: Claude Code session invoice-service (4be41908) reached its auto-compact threshold (170K of 167K tokens): Claude Code compacts it at its next turn; a handoff now keeps what the summary may lose.',
    );
    expect(auto?.actions).toEqual(NOTICE_ACTIONS);
    expect(auto?.sessionId).toBe('4be41908-9cd7-4f2f-8ce3-b4984d13a3f5');
    expect(noticeFor(crossing('autocompact', 'blocking', 178_000), sampleSession())?.message).toContain(
      'is at its blocking limit (178K tokens)',
    );
  });

  it('says nothing on the way down (a compaction) or sideways', () => {
    expect(noticeFor(crossing('autocompact', 'ok', 30_000), null)).toBeNull();
    expect(noticeFor(crossing('error', 'warning', 150_000), null)).toBeNull();
    expect(noticeFor(crossing('warning', 'warning', 150_000), null)).toBeNull();
  });

  it('speaks of the context used and the API refusing, in reactive mode (no threshold, no blocking)', () => {
    const into = (from: ThresholdState, to: ThresholdState, tokens: number): ThresholdCrossedEvent => ({
      ...crossing(from, to, tokens),
      threshold: reactiveThreshold(tokens),
    });
    expect(noticeFor(into('ok', 'error', 950_000), null)?.message).toBe(
      'memd: Claude Code session 4be41908 has used 95% of its context (50K tokens left); Claude Code compacts it when the API refuses the request.',
    );
    const full = noticeFor(into('error', 'autocompact', 1_000_500), sampleSession());
    expect(full?.message).toBe(
      'memd: Claude Code session invoice-service (4be41908) is at its window (1.0M of 1.0M tokens): the API refuses its next request and Claude Code compacts it then; a handoff now keeps what the summary may lose.',
    );
    expect(full?.actions).toEqual(NOTICE_ACTIONS);
  });

  it('speaks of the window when auto-compact is off', () => {
    const event = crossing('ok', 'warning', 150_000);
    event.threshold = { ...event.threshold, autoCompactEnabled: false };
    expect(noticeFor(event, null)?.message).toContain('% of window used (17K tokens left; auto-compact is off)');
  });
});

describe('wanted', () => {
  const folders = ['/home/user/src/invoice-service/'];
  it('follows memd.notifications', () => {
    expect(wanted('all', null, [])).toBe(true);
    expect(wanted('off', sampleSession(), folders)).toBe(false);
    expect(wanted('workspace', sampleSession(), folders)).toBe(true);
    expect(wanted('workspace', sampleSession({ cwd: '/elsewhere' }), folders)).toBe(false);
    expect(wanted('workspace', sampleSession({ cwd: null }), folders)).toBe(false);
    expect(wanted('workspace', null, folders)).toBe(false);
  });
});
