/** `memory.summary`, `memory.extract`, `memory.lock`, `memory.unlock`, `memory.pause` and `memory.resume`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ExtractionService } from '../../extraction/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function extractionMethods(extraction: ExtractionService): MethodHandler[] {
  return [
    handle(Methods.memorySummary, (params) => extraction.summary(params.sessionId)),
    handle(Methods.memoryExtract, (params, ctx) => extraction.extract(params.sessionId, ctx.signal)),
    handle(Methods.memoryLock, ({ sessionId, owner, ...options }) => extraction.lock(sessionId, owner, options)),
    handle(Methods.memoryUnlock, (params) => extraction.unlock(params.sessionId, params.owner, params.transcriptPath)),
    handle(Methods.memoryPause, () => extraction.setPaused(true)),
    handle(Methods.memoryResume, () => extraction.setPaused(false)),
  ];
}
