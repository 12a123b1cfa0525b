/**
 * Transcript shapes of newer (and some older) Claude Code versions (issue 31 item 2), in lines the
 * test writes itself: cache writes given only in the nested `cache_creation` split (the total 0,
 * before 2.1.152), and a reasoning effort on assistant messages (newer versions; memd reads past it).
 */
import { describe, expect, it } from 'vitest';
import { contextOfUsage } from '../../../../shared/transcript/context-count.js';
import { parseEntry, parseUsage } from '../../../../shared/transcript/parse.js';

const SONNET = 'claude-sonnet-4-5-20250929';

/** An assistant entry of one response with the given usage (and whatever else the version adds). */
function assistant(
  usage: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  message: Record<string, unknown> = {},
) {
  return {
    type: 'assistant',
    sessionId: 's-new',
    uuid: 'a1',
    parentUuid: null,
    timestamp: '2026-12-01T10:00:00.000Z',
    cwd: '/w',
    requestId: 'req_1',
    ...extra,
    message: {
      id: 'msg_1',
      model: SONNET,
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      usage,
      ...message,
    },
  };
}

describe('cache writes in the nested split only', () => {
  it('counts the split when the total is 0 (as ccusage 20.0.24 does: 3,500 cache-creation tokens)', () => {
    const usage = parseUsage({
      input_tokens: 10,
      output_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
      cache_creation: { ephemeral_5m_input_tokens: 3_000, ephemeral_1h_input_tokens: 500 },
    });
    expect(usage).toEqual({
      input: 10,
      output: 20,
      cacheCreation: 3_500,
      cacheRead: 100,
      cache5m: 3_000,
      cache1h: 500,
    });
    // The context the response measured includes those writes.
    expect(usage && contextOfUsage(usage)).toBe(10 + 20 + 3_500 + 100);
  });

  it("takes the split over a total that disagrees, and a split's missing half as 0 (ccusage's figures: 3,500; 700)", () => {
    const split = { ephemeral_5m_input_tokens: 3_000, ephemeral_1h_input_tokens: 500 };
    expect(parseUsage({ cache_creation_input_tokens: 4_000, cache_creation: split })?.cacheCreation).toBe(3_500);
    expect(parseUsage({ cache_creation_input_tokens: 2_000, cache_creation: split })?.cacheCreation).toBe(3_500);
    const oneHourOnly = parseUsage({
      cache_creation_input_tokens: 4_000,
      cache_creation: { ephemeral_1h_input_tokens: 700 },
    });
    expect(oneHourOnly).toMatchObject({ cacheCreation: 700, cache5m: 0, cache1h: 700 });
  });

  it('keeps the total when there is no split (the old shape)', () => {
    expect(parseUsage({ input_tokens: 1, cache_creation_input_tokens: 4_000 })).toMatchObject({
      cacheCreation: 4_000,
      cache5m: 0,
      cache1h: 0,
    });
  });

  it('reads the split through parseEntry, as the index does', () => {
    const line = assistant({
      input_tokens: 3,
      output_tokens: 7,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 9_000,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1_200 },
    });
    expect(parseEntry(line, 0, JSON.stringify(line).length)?.usage).toMatchObject({
      cacheCreation: 1_200,
      cache1h: 1_200,
    });
  });
});

describe('reasoning effort on assistant messages', () => {
  it('parses an entry carrying an effort (on the entry or its message) like one without', () => {
    const usage = { input_tokens: 3, output_tokens: 7, cache_creation_input_tokens: 50, cache_read_input_tokens: 900 };
    const plain = assistant(usage);
    const expected = parseEntry(plain, 0, 10);
    for (const line of [
      assistant(usage, { effort: 'high' }),
      assistant(usage, {}, { effort: 'medium' }),
      assistant(usage, { effort: { level: 'xhigh' } }, { effort: null }),
    ]) {
      const entry = parseEntry(line, 0, 10);
      expect(entry).toEqual(expected);
      expect(entry?.model).toBe(SONNET);
    }
  });
});
