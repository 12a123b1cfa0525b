/** `sessions.list`, `sessions.get`, `sessions.report` and `compact.thresholds`. */
import { Methods } from '../../../shared/protocol/methods.js';
import { computeThresholds, type ThresholdEnv } from '../../../shared/transcript/thresholds.js';
import type { SessionReports } from '../../sessions/reports.js';
import type { SessionService } from '../../sessions/service.js';
import { statedWindow } from '../../sessions/windows.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function sessionMethods(sessions: SessionService, env: ThresholdEnv, reports: SessionReports): MethodHandler[] {
  return [
    handle(Methods.sessionsList, (params) => sessions.list(params)),
    // The reports are read at every answer: the summary is cached, and they change with every status line refresh.
    handle(Methods.sessionsGet, (params) => ({
      ...sessions.get(params.sessionId, statedWindow(params)),
      reported: reports.get(params.sessionId),
    })),
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
