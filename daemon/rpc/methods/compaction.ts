/** `compact.micro`, `compact.cacheEdits`, `compact.auto`, `compact.reactive` and `toolResults.get`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { CompactionService } from '../../compaction/service.js';
import { getToolResult } from '../../compaction/tool-results.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function compactionMethods(compaction: CompactionService, projectsDir: string): MethodHandler[] {
  return [
    handle(Methods.compactMicro, (params, ctx) => compaction.micro(params.sessionId, ctx.signal)),
    handle(Methods.compactCacheEdits, (params, ctx) =>
      compaction.cacheEdits(params.sessionId, params.keep, ctx.signal),
    ),
    handle(Methods.compactAuto, (params, ctx) =>
      compaction.auto(params.sessionId, { force: params.force, instructions: params.instructions }, ctx.signal),
    ),
    handle(Methods.compactReactive, (params, ctx) =>
      compaction.reactive(params.sessionId, params.limitTokens, ctx.signal),
    ),
    handle(Methods.toolResultsGet, (params, ctx) => getToolResult(compaction, projectsDir, params, ctx.signal)),
  ];
}
