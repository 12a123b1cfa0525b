/** `search.query` and `search.context`. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { SearchService } from '../../search/service.js';
import { handle, type MethodHandler } from '../dispatch.js';

export function searchMethods(search: SearchService): MethodHandler[] {
  return [
    handle(Methods.searchQuery, (params, ctx) => search.query(params, ctx.connection.id, ctx.signal)),
    handle(Methods.searchContext, (params, ctx) =>
      search.context(params.sessionId, params.uuid, params.before, params.after, params.maxBlockChars, ctx.signal),
    ),
  ];
}
