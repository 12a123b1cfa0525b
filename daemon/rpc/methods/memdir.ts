/** `memdir.list`, `memdir.read`, `memdir.write` and `memdir.delete`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { MemdirStore } from '../../memory/memdir/store.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function memdirMethods(store: MemdirStore): MethodHandler[] {
  return [
    handle(Methods.memdirList, (params) => store.list(params.project, params.scope)),
    handle(Methods.memdirRead, (params) => store.read(params.project, params.scope, params.name)),
    handle(Methods.memdirWrite, (params) => store.write(params)),
    handle(Methods.memdirDelete, (params) => store.delete(params)),
  ];
}
