/**
 * The warning shown when a session's context crosses a threshold (`session.thresholdCrossed`):
 * only on the way up into warning, error, auto-compact or blocking (a drop is a compaction, good
 * news), only for the sessions the user asked about, with the commands that help next. Pure.
 */

import type { ThresholdCrossedEvent } from '../../../shared/protocol/events.js';
import type { SessionSummary, ThresholdState } from '../../../shared/protocol/sessions.js';
import { compactsWhenRefused, compactTokens, percentText } from '../../../shared/statusline/format.js';
import type { NotificationScope } from './settings.js';
import { samePath, sessionName } from './status.js';

/** Threshold states by severity: a crossing to a higher rank is news. */
const RANK: Record<ThresholdState, number> = { ok: 0, warning: 1, error: 2, autocompact: 3, blocking: 4 };

export interface NoticeAction {
  title: string;
  command: string;
}

export interface Notice {
  sessionId: string;
  message: string;
  actions: NoticeAction[];
}

export const NOTICE_ACTIONS: readonly NoticeAction[] = [
  { title: 'Preview Compaction', command: 'memd.previewCompaction' },
  { title: 'Write Handoff', command: 'memd.writeHandoff' },
  { title: 'Open Session', command: 'memd.openSession' },
];

/** Whether the user wants to hear about this session (memd.notifications). */
export function wanted(scope: NotificationScope, session: SessionSummary | null, folders: readonly string[]): boolean {
  if (scope === 'off') return false;
  if (scope === 'all') return true;
  const cwd = session?.cwd ?? null;
  return cwd !== null && folders.some((folder) => samePath(folder, cwd));
}

function describe(event: ThresholdCrossedEvent): string {
  const { threshold } = event;
  if (compactsWhenRefused(threshold)) return describeReactive(event);
  const used = `${compactTokens(event.contextTokens)} of ${compactTokens(threshold.autoCompactAt)} tokens`;
  switch (event.to) {
    case 'autocompact':
      return `reached its auto-compact threshold (${used}): Claude Code compacts it at its next turn; a handoff now keeps what the summary may lose.`;
    case 'blocking':
      return `is at its blocking limit (${compactTokens(event.contextTokens)} tokens): Claude Code refuses new prompts until it is compacted.`;
    default:
      // The share used, in the status line's words (percentText), and the room left in tokens.
      return threshold.autoCompactEnabled
        ? `is at ${percentText(threshold)} (${compactTokens(threshold.tokensLeft)} tokens left).`
        : `is at ${percentText(threshold)} (${compactTokens(threshold.tokensLeft)} tokens left; auto-compact is off).`;
  }
}

/** Reactive mode: Claude Code compacts only when the API refuses, at the window; it blocks nothing. */
function describeReactive(event: ThresholdCrossedEvent): string {
  const { threshold } = event;
  if (event.to === 'autocompact' || event.to === 'blocking') {
    return `is at its window (${compactTokens(event.contextTokens)} of ${compactTokens(threshold.window)} tokens): the API refuses its next request and Claude Code compacts it then; a handoff now keeps what the summary may lose.`;
  }
  return `has used ${Math.max(0, threshold.percentUsed)}% of its context (${compactTokens(threshold.tokensLeft)} tokens left); Claude Code compacts it when the API refuses the request.`;
}

/** The notice for a crossing, or null when it is not one to show. */
export function noticeFor(event: ThresholdCrossedEvent, session: SessionSummary | null): Notice | null {
  if (event.to === 'ok' || RANK[event.to] <= RANK[event.from]) return null;
  const name = session === null ? event.sessionId.slice(0, 8) : sessionName(session);
  return {
    sessionId: event.sessionId,
    message: `memd: Claude Code session ${name} ${describe(event)}`,
    actions: [...NOTICE_ACTIONS],
  };
}
