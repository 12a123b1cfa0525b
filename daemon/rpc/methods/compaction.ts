/** `compact.micro`, `compact.cacheEdits`, `compact.auto`, `compact.reactive` and `toolResults.get`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { CompactionService } from '../../compaction/service.js';
import { readToolResult } from '../../compaction/tool-results.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function compactionMethods(compaction: CompactionService, projectsDir: string): MethodHandler[] {
  return [
    handle(Methods.compactMicro, (params) => compaction.micro(params.sessionId)),
    handle(Methods.compactCacheEdits, (params) => compaction.cacheEdits(params.sessionId, params.keep)),
    handle(Methods.compactAuto, (params) => compaction.auto(params.sessionId, { force: params.force, instructions: params.instructions })),
    handle(Methods.compactReactive, (params) => compaction.reactive(params.sessionId, params.limitTokens)),
    // Read from the active conversation (cached) and the session's tool-results dir.
    handle(Methods.toolResultsGet, (params) => {
      const conversation = compaction.conversation(params.sessionId);
      return readToolResult(projectsDir, conversation.file.project, params.sessionId, params.toolUseId, conversation, params);
    }),
  ];
}
