/** `handoff.generate` and `handoff.read`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { HandoffService } from '../../handoff/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function handoffMethods(service: HandoffService): MethodHandler[] {
  return [
    // The signal: a client that cancels or goes away stops the model call and the git runs.
    handle(Methods.handoffGenerate, (params, ctx) => service.generate(params, ctx.signal)),
    handle(Methods.handoffRead, (params) => service.read(params.cwd, params.sessionId)),
  ];
}
