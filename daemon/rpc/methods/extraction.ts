/** `memory.summary`, `memory.extract`, `memory.lock` and `memory.unlock`. */
import { Methods } from '../../../shared/protocol/methods.js';
import { handle, type MethodHandler } from '../dispatch.js';
import type { ExtractionService } from '../../extraction/service.js';

export function extractionMethods(extraction: ExtractionService): MethodHandler[] {
  return [
    handle(Methods.memorySummary, (params) => extraction.summary(params.sessionId)),
    handle(Methods.memoryExtract, (params) => extraction.extract(params.sessionId)),
    handle(Methods.memoryLock, (params) => extraction.lock(params.sessionId, params.owner, params.ttlMs)),
    handle(Methods.memoryUnlock, (params) => extraction.unlock(params.sessionId, params.owner)),
  ];
}
