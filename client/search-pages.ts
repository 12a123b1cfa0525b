/**
 * A search page filled by following the daemon's cursor (issue 28, item 6): a page cut by its time
 * budget (`partial`) is continued, up to a wall time, so that a phrase deep in a large session is
 * found by one `memctl search --session` or one MCP call, while each request stays short and other
 * clients' queries take their turns between them.
 */
import type { Methods, ParamsOf, ResultOf } from '../shared/protocol/methods.js';

type SearchParams = ParamsOf<typeof Methods.searchQuery>;
type SearchResult = ResultOf<typeof Methods.searchQuery>;

/** How long memctl and the MCP tool follow a partial page before answering what they found. */
export const SEARCH_FOLLOW_MS = 10_000;
const DEFAULT_LIMIT = 20;

/**
 * The hits of `params`' page, following `partial` pages' cursors until `limit` hits, the last match,
 * or `maxMs`; `partial` stays set (with its cursor) when the wall time ended it.
 */
export async function searchFilled(
  search: (params: SearchParams) => Promise<SearchResult>,
  params: SearchParams,
  maxMs = SEARCH_FOLLOW_MS,
  now: () => number = Date.now,
): Promise<SearchResult> {
  const limit = params.limit ?? DEFAULT_LIMIT;
  const until = now() + maxMs;
  let result = await search(params);
  const hits = [...result.hits];
  while (result.partial === true && result.nextCursor !== null && hits.length < limit && now() < until) {
    result = await search({ ...params, limit: limit - hits.length, cursor: result.nextCursor });
    hits.push(...result.hits);
  }
  return { ...result, hits };
}
