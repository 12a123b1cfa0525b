/**
 * Issue 28 item 8: the report showed only the chain back from the last message (2,106 of 18,069
 * entries on a long session) and did not say the rest was left out. Every segment is shown now,
 * also where a link back is missing; what is left out (rewound branches) is counted.
 */
import { describe, expect, it } from 'vitest';
import { conversationChain, leftOutMessages } from '../../../../daemon/export/chain.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { indexedEntry } from '../../../helpers/compact.js';

const message = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant' = 'user'): IndexedEntry =>
  indexedEntry({ uuid, parentUuid, type });
const uuids = (entries: readonly IndexedEntry[]) => entries.map((entry) => entry.uuid);

describe('conversationChain: every segment of the session', () => {
  it('keeps the conversation before a resume whose first message names no parent', () => {
    const entries = [
      message('a1', null),
      message('a2', 'a1', 'assistant'),
      message('b1', null),
      message('b2', 'b1', 'assistant'),
    ];
    const chain = conversationChain(entries);
    expect(uuids(chain)).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(leftOutMessages(entries, chain)).toBe(0);
  });

  it('keeps the segment before a compaction whose logical parent is not in the file', () => {
    const boundary = indexedEntry({
      uuid: 'c',
      parentUuid: null,
      logicalParentUuid: 'trimmed-away',
      type: 'system',
      subtype: 'compact_boundary',
      compact: { trigger: 'auto', preTokens: 160_000, postTokens: null, preservedSegment: null },
    });
    const summary = indexedEntry({ uuid: 's', parentUuid: 'c', type: 'user', isCompactSummary: true });
    const entries = [
      message('a1', null),
      message('a2', 'a1', 'assistant'),
      boundary,
      summary,
      message('d1', 's'),
      message('d2', 'd1', 'assistant'),
    ];
    const chain = conversationChain(entries);
    expect(uuids(chain)).toEqual(['a1', 'a2', 'c', 's', 'd1', 'd2']);
    expect(leftOutMessages(entries, chain)).toBe(0);
  });

  it('leaves a rewound branch out, and counts its messages', () => {
    const entries = [
      message('a1', null),
      message('a2', 'a1', 'assistant'),
      message('x1', 'a2'),
      message('x2', 'x1', 'assistant'),
      message('y1', 'a2'),
      message('y2', 'y1', 'assistant'),
    ];
    const chain = conversationChain(entries);
    expect(uuids(chain)).toEqual(['a1', 'a2', 'y1', 'y2']);
    expect(leftOutMessages(entries, chain)).toBe(2);
  });
});

describe('conversationChain: bounded on a file of unlinked messages', () => {
  it('follows at most 50 unlinked segments and counts what lies before them', () => {
    const entries = Array.from({ length: 2_000 }, (_, index) => message(`m${index}`, null));
    const chain = conversationChain(entries);
    expect(chain.length).toBeGreaterThan(1);
    expect(chain.length).toBeLessThanOrEqual(51);
    expect(leftOutMessages(entries, chain)).toBe(2_000 - chain.length);
  });
});
