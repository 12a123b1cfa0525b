/** `sessions.list`, `sessions.get` (with the deletions memd did not hold, for the status line), `sessions.report` and `compact.thresholds`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { SessionSummary } from '../../../shared/protocol/sessions.js';
import { computeThresholds, type ThresholdEnv } from '../../../shared/transcript/thresholds.js';
import type { SessionReports } from '../../sessions/reports.js';
import type { SessionService } from '../../sessions/service.js';
import { statedWindow } from '../../sessions/windows.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function sessionMethods(
  sessions: SessionService,
  env: ThresholdEnv,
  deletions: { deletedNotHeld(): number },
  reports: SessionReports,
  compactions: { lastSurvival(sessionId: string, compactions: number): SessionSummary['lastCompaction'] | null },
): MethodHandler[] {
  return [
    handle(Methods.sessionsList, (params) => sessions.list(params)),
    // The reports are read at every answer: the summary is cached, and they change with every status line refresh.
    handle(Methods.sessionsGet, (params) => {
      const summary = {
        ...sessions.get(params.sessionId, statedWindow(params)),
        reported: reports.get(params.sessionId),
      };
      // The status line's warning rides on the answer it already asks for (issue 31): no second call.
      const deletedNotHeld = deletions.deletedNotHeld();
      // And the last compaction's survival score (issue 32): one indexed row read.
      const lastCompaction = compactions.lastSurvival(params.sessionId, summary.compactions.count);
      return {
        ...summary,
        ...(deletedNotHeld > 0 ? { deletedNotHeld } : {}),
        ...(lastCompaction === null || lastCompaction === undefined ? {} : { lastCompaction }),
      };
    }),
    handle(Methods.sessionsReport, (params) => {
      const { sessionId, ...reported } = params;
      return { stored: reports.report(sessionId, reported) };
    }),
    handle(Methods.compactThresholds, (params) =>
      'sessionId' in params
        ? sessions.get(params.sessionId).threshold
        : computeThresholds({ model: params.model, tokens: params.tokens, env }),
    ),
  ];
}
