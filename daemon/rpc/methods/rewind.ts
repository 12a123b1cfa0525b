/** `rewind.list`, `rewind.restore` and `rewind.undo`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { RewindService } from '../../memory/rewind/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function rewindMethods(rewind: RewindService): MethodHandler[] {
  return [
    handle(Methods.rewindList, (params) => rewind.list(params.sessionId)),
    handle(Methods.rewindRestore, (params) =>
      rewind.restore(params.sessionId, params.messageId, params.dryRun ?? false, params.allowOutsideProject ?? false),
    ),
    handle(Methods.rewindUndo, (params) => rewind.undo(params.undoId, params.dryRun ?? false)),
  ];
}
