/**
 * `memdir.conflicts` and `memdir.resolve` (issue 35): memory files changed on two machines. Served
 * from the memdir sync part, which exists whether or not a sync folder is set (earlier conflicts
 * stay listed, and resolvable, after sync is turned off).
 */
import { Methods } from '../../../shared/protocol/methods.js';
import type { MemdirSync } from '../../sync/memdir-sync.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function memdirSyncMethods(sync: MemdirSync): MethodHandler[] {
  return [
    handle(Methods.memdirConflicts, (params) => ({
      device: sync.deviceId,
      syncing: sync.syncing,
      conflicts: sync.conflicts(params.project),
    })),
    handle(Methods.memdirResolve, (params) => sync.resolve(params)),
  ];
}
