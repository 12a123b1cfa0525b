/** `sessions.list`, `sessions.get` and `compact.thresholds`. */
import { Methods } from '../../../shared/protocol/methods.js';
import { computeThresholds, type ThresholdEnv } from '../../../shared/transcript/thresholds.js';
import type { SessionService } from '../../sessions/service.js';
import { statedWindow } from '../../sessions/windows.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function sessionMethods(sessions: SessionService, env: ThresholdEnv): MethodHandler[] {
  return [
    handle(Methods.sessionsList, (params) => sessions.list(params)),
    handle(Methods.sessionsGet, (params) => sessions.get(params.sessionId, statedWindow(params))),
    handle(Methods.compactThresholds, (params) =>
      'sessionId' in params
        ? sessions.get(params.sessionId).threshold
        : computeThresholds({ model: params.model, tokens: params.tokens, env }),
    ),
  ];
}
