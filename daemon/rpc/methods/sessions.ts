/** `sessions.list`, `sessions.get` (with the deletions memd did not hold, for the status line) and `compact.thresholds`. */
import { Methods } from '../../../shared/protocol/methods.js';
import { computeThresholds, type ThresholdEnv } from '../../../shared/transcript/thresholds.js';
import type { SessionService } from '../../sessions/service.js';
import { statedWindow } from '../../sessions/windows.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function sessionMethods(
  sessions: SessionService,
  env: ThresholdEnv,
  deletions: { deletedNotHeld(): number },
): MethodHandler[] {
  return [
    handle(Methods.sessionsList, (params) => sessions.list(params)),
    handle(Methods.sessionsGet, (params) => {
      const summary = sessions.get(params.sessionId, statedWindow(params));
      // The status line's warning rides on the answer it already asks for (issue 31): no second call.
      const deletedNotHeld = deletions.deletedNotHeld();
      return deletedNotHeld > 0 ? { ...summary, deletedNotHeld } : summary;
    }),
    handle(Methods.compactThresholds, (params) =>
      'sessionId' in params
        ? sessions.get(params.sessionId).threshold
        : computeThresholds({ model: params.model, tokens: params.tokens, env }),
    ),
  ];
}
