import { describe, expect, it } from 'vitest';
import { renderSearch } from '../../../client/memctl/mcp/tools/search.js';
import { searchFilled } from '../../../client/search-pages.js';
import type { SearchHit, SearchQueryResult } from '../../../shared/protocol/search.js';

const INDEX = { state: 'ready', filesDone: 0, filesTotal: 0 } as const;
const hit = (sessionId: string, uuid: string): SearchHit => ({
  sessionId,
  uuid,
  timestamp: null,
  kind: 'prompt',
  snippet: 'the «retry» «budget»',
  score: 1,
  project: '-p',
  projectName: 'p',
  title: null,
});

describe('searchFilled', () => {
  it('follows partial pages until the page is full, keeping the last cursor', async () => {
    const pages: SearchQueryResult[] = [
      { hits: [], nextCursor: 'c1', partial: true, partialReason: 'time', index: INDEX },
      { hits: [hit('s', 'a')], nextCursor: 'c2', partial: true, partialReason: 'time', index: INDEX },
      { hits: [hit('s', 'b')], nextCursor: 'c3', index: INDEX },
    ];
    const asked: unknown[] = [];
    const result = await searchFilled(
      async (params) => {
        asked.push(params);
        return pages[asked.length - 1] as SearchQueryResult;
      },
      { query: 'q', limit: 2 },
    );
    expect(result.hits.map((one) => one.uuid)).toEqual(['a', 'b']);
    expect(result.nextCursor).toBe('c3');
    expect(result.partial).toBeUndefined();
    expect(asked).toEqual([
      { query: 'q', limit: 2 },
      { query: 'q', limit: 2, cursor: 'c1' },
      { query: 'q', limit: 1, cursor: 'c2' },
    ]);
  });

  it('stops at its wall time and keeps the page partial, with the cursor that goes on', async () => {
    let clock = 0;
    const result = await searchFilled(
      async () => {
        clock += 600;
        return { hits: [], nextCursor: `c${clock}`, partial: true, partialReason: 'time', index: INDEX };
      },
      { query: 'q' },
      1_000,
      () => clock,
    );
    expect(result).toMatchObject({ hits: [], nextCursor: 'c1200', partial: true });
  });
});

describe('the MCP search answer says whether it holds every hit', () => {
  it('every hit, with the sessions counted, or the cursor that gets the rest and why the page is short', () => {
    expect(
      renderSearch({ query: 'q' }, { hits: [hit('s1', 'a'), hit('s2', 'b')], nextCursor: null, index: INDEX }),
    ).toContain('these are every hit, in 2 sessions');
    const cut = renderSearch(
      { query: 'q' },
      { hits: [hit('s1', 'a')], nextCursor: 'w1:1-2::3', partial: true, partialReason: 'time', index: INDEX },
    );
    expect(cut).toContain('1 session on this page; more hits (maybe in more sessions) exist.');
    expect(cut).toContain('ran out of time');
    expect(cut).toContain('"w1:1-2::3"');
    const none = renderSearch(
      { query: 'q' },
      { hits: [], nextCursor: 'w1:1-2::3', partial: true, partialReason: 'time', index: INDEX },
    );
    expect(none).toMatch(/^No hits yet for "q" in every project: the search ran out of time/);
    expect(none).toContain('"w1:1-2::3"');
  });
});
