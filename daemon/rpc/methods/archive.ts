/** `archive.list`, `restore`, `verify`, `prune`, `deleted` and `forget`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ArchiveService } from '../../archive/service.js';
import type { SyncService } from '../../sync/service.js';
import { handle, type MethodHandler } from '../dispatch.js';
import { restoreAnywhere } from './sync.js';

export function archiveMethods(archive: ArchiveService, sync: SyncService): MethodHandler[] {
  return [
    handle(Methods.archiveList, (params) => archive.list(params)),
    handle(Methods.archiveRestore, (params) => restoreAnywhere(archive, sync, params)),
    handle(Methods.archiveVerify, (params) => archive.verify(params.sessionId)),
    handle(Methods.archivePrune, (params) => archive.prune(params.olderThan, params.dryRun ?? false)),
    handle(Methods.archiveDeleted, (params) => archive.deleted(params)),
    handle(Methods.archiveForget, (params) => archive.forget(params.sessionId, params.deleteTranscripts ?? false)),
  ];
}
