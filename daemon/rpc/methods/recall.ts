/** `recall.forPrompt` and `recall.forFailure` (issue 33): what the prompt and failure hooks inject. */
import { Methods } from '../../../shared/protocol/methods.js';
import { RECALL_DAEMON_DEADLINE_MS } from '../../../shared/protocol/recall.js';
import type { RecallService } from '../../recall/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function recallMethods(recall: RecallService): MethodHandler[] {
  return [
    handle(Methods.recallForPrompt, (params, ctx) =>
      recall.forPrompt({
        sessionId: params.sessionId,
        prompt: params.prompt,
        cwd: params.cwd,
        deadlineMs: params.deadlineMs ?? RECALL_DAEMON_DEADLINE_MS,
        owner: ctx.connection.id,
        signal: ctx.signal,
      }),
    ),
    handle(Methods.recallForFailure, (params, ctx) =>
      recall.forFailure({
        sessionId: params.sessionId,
        toolName: params.toolName,
        error: params.error,
        ...(params.command === undefined ? {} : { command: params.command }),
        cwd: params.cwd,
        deadlineMs: params.deadlineMs ?? RECALL_DAEMON_DEADLINE_MS,
        owner: ctx.connection.id,
        signal: ctx.signal,
      }),
    ),
  ];
}
