import { describe, expect, it } from 'vitest';
import { oneHitPerLine, renderSearch } from '../../../../../../client/memctl/mcp/tools/search.js';
import type { SearchHit } from '../../../../../../shared/protocol/search.js';

const SESSION = '4be41908-9cd7-4f2f-8ce3-b4984d13a3f5';

function hit(uuid: string | null, kind: SearchHit['kind'], snippet: string): SearchHit {
  const at = '2026-12-02T10:26:00.000Z';
  return {
    sessionId: SESSION,
    uuid,
    timestamp: at,
    kind,
    snippet,
    score: 1,
    project: 'p',
    projectName: 'p',
    title: 't',
  };
}

describe('search_sessions: one hit per transcript line', () => {
  it('keeps the better ranked of two hits on one line (an Edit matched as written text and as its call)', () => {
    const written = hit('u1', 'write', 'Edit src/«invoice».js return total;');
    const call = hit('u1', 'tool', 'Edit src/«invoice».js');
    const other = hit('u2', 'tool', 'Bash run the «invoice» tests');
    const gone = hit(null, 'output', '«invoice»');
    expect(oneHitPerLine([written, other, call, gone, gone])).toEqual([written, other, gone, gone]);
    const text = renderSearch(
      { query: 'invoice' },
      { hits: [written, call, other], nextCursor: null, index: { state: 'ready', filesDone: 1, filesTotal: 1 } },
    );
    expect(text).toMatch(/^2 hits for "invoice"/);
    expect(text.match(/uuid u1/g)).toHaveLength(1);
  });
});
