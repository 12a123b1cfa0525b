/** `compact.micro`, `compact.cacheEdits`, `compact.auto`, `compact.reactive` and `toolResults.get`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ToolResultContent } from '../../../shared/protocol/results.js';
import { handle, type MethodHandler } from '../dispatch.js';
import type { CompactionService } from '../../compaction/service.js';

export function compactionMethods(compaction: CompactionService, toolResult: (sessionId: string, toolUseId: string, range: { offset?: number; length?: number }) => Promise<ToolResultContent>): MethodHandler[] {
  return [
    handle(Methods.compactMicro, (params) => compaction.micro(params.sessionId)),
    handle(Methods.compactCacheEdits, (params) => compaction.cacheEdits(params.sessionId, params.keep)),
    handle(Methods.compactAuto, (params) => compaction.auto(params.sessionId, { force: params.force, instructions: params.instructions })),
    handle(Methods.compactReactive, (params) => compaction.reactive(params.sessionId, params.limitTokens)),
    handle(Methods.toolResultsGet, (params) => toolResult(params.sessionId, params.toolUseId, params)),
  ];
}
