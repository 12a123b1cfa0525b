/** `sync.status` (issue 35), and `archive.restore` of another machine's session. */
import type { ArchiveRestoreResult } from '../../../shared/protocol/archive.js';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import { Methods } from '../../../shared/protocol/methods.js';
import type { ArchiveService } from '../../archive/service.js';
import type { SyncService } from '../../sync/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

/** This machine's archive first; another machine's copy when asked for by device, or when this machine has none. */
export async function restoreAnywhere(
  archive: Pick<ArchiveService, 'restore'>,
  sync: Pick<SyncService, 'has' | 'restore'>,
  params: { sessionId: string; to?: string | undefined; device?: string | undefined },
): Promise<ArchiveRestoreResult> {
  if (params.device === undefined) {
    try {
      return await archive.restore(params.sessionId, params.to);
    } catch (error) {
      if (!(error instanceof RpcError && error.code === ErrorCode.NotFound && sync.has(params.sessionId))) throw error;
    }
  }
  return sync.restore(params.sessionId, params.to, params.device);
}

export function syncMethods(sync: SyncService): MethodHandler[] {
  return [handle(Methods.syncStatus, () => sync.status())];
}
