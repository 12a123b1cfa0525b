/** `handoff.sessionStart`, `handoff.postCompact` and `handoff.status`: the hook commands' side. */
import { Methods } from '../../../shared/protocol/methods.js';
import { handle, type MethodHandler } from '../dispatch.js';
import type { HookService } from '../../handoff/hooks.js';

export function hookMethods(hooks: HookService): MethodHandler[] {
  return [
    handle(Methods.handoffSessionStart, (params) => hooks.sessionStart(params.sessionId, params.cwd, params.source)),
    handle(Methods.handoffPostCompact, (params, ctx) => hooks.postCompact(params.sessionId, params.trigger, params.compactSummary, ctx.signal)),
    handle(Methods.handoffStatus, (params) => hooks.status(params.sessionId)),
  ];
}
