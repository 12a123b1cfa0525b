/** `archive.list`, `restore`, `verify`, `prune`, `deleted` and `forget`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ArchiveService } from '../../archive/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function archiveMethods(archive: ArchiveService): MethodHandler[] {
  return [
    handle(Methods.archiveList, (params) => archive.list(params)),
    handle(Methods.archiveRestore, (params) => archive.restore(params.sessionId, params.to)),
    handle(Methods.archiveVerify, (params) => archive.verify(params.sessionId)),
    handle(Methods.archivePrune, (params) => archive.prune(params.olderThan, params.dryRun ?? false)),
    handle(Methods.archiveDeleted, (params) => archive.deleted(params)),
    handle(Methods.archiveForget, (params) => archive.forget(params.sessionId, params.deleteTranscripts ?? false)),
  ];
}
