/**
 * `handoff.sessionStart`, `handoff.postCompact`, `handoff.status`, `handoff.turnFailed` and
 * `handoff.instructionsLoaded`: the hook commands' side.
 */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ExtractionService } from '../../extraction/service.js';
import type { HookService } from '../../handoff/hooks.js';
import type { SessionService } from '../../sessions/service.js';
import { statedWindow } from '../../sessions/windows.js';
import { handle, type MethodHandler } from '../dispatch.js';

/** `sessions`: where a window the SessionStart hook's model states is kept (issue 28), as sessions.get keeps the status line's. */
export function hookMethods(
  hooks: HookService,
  sessions: Pick<SessionService, 'stateWindow'>,
  extraction: Pick<ExtractionService, 'unlock'>,
): MethodHandler[] {
  return [
    handle(Methods.handoffSessionStart, (params) => {
      const stated = statedWindow(params);
      if (stated !== null) sessions.stateWindow(params.sessionId, stated);
      return hooks.sessionStart(params.sessionId, params.cwd, params.source);
    }),
    handle(Methods.handoffPostCompact, (params, ctx) =>
      hooks.postCompact(params.sessionId, params.trigger, params.compactSummary, ctx.signal),
    ),
    handle(Methods.handoffStatus, (params) => hooks.status(params.sessionId)),
    // Released at once: a turn an API error ended sends no Stop, and would hold extraction off until its TTL lapsed.
    handle(Methods.handoffTurnFailed, (params) => {
      hooks.turnFailed(params.sessionId, params.error, params.details ?? null);
      return extraction.unlock(params.sessionId, params.owner, params.transcriptPath);
    }),
    handle(Methods.handoffInstructionsLoaded, (params) => {
      hooks.instructionsLoaded(params.sessionId, params.filePath, params.memoryType, params.loadReason);
      return { recorded: true };
    }),
  ];
}
