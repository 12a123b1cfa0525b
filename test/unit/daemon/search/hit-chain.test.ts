/** Issue 28 item 6: a hit's chain and segment, wherever in the session it is. */
import { describe, expect, it } from 'vitest';
import { chainOfHit, segmentOf } from '../../../../daemon/search/hit-chain.js';
import { activeConversation } from '../../../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { indexedEntry } from '../../../helpers/compact.js';

const message = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant' = 'user'): IndexedEntry =>
  indexedEntry({ uuid, parentUuid, type });
const uuids = (entries: readonly IndexedEntry[]) => entries.map((entry) => entry.uuid);
const boundary = indexedEntry({
  uuid: 'c',
  parentUuid: null,
  logicalParentUuid: 'a2',
  type: 'system',
  subtype: 'compact_boundary',
  compact: { trigger: 'auto', preTokens: 160_000, postTokens: null, preservedSegment: null },
});
// a1 a2 | c s d1 d2 (x1 x2 rewound) y1 y2
const entries = [
  message('a1', null),
  message('a2', 'a1', 'assistant'),
  boundary,
  message('s', 'c'),
  message('d1', 's'),
  message('d2', 'd1', 'assistant'),
  message('x1', 'd2'),
  message('x2', 'x1', 'assistant'),
  message('y1', 'd2'),
  message('y2', 'y1', 'assistant'),
];

describe('chainOfHit', () => {
  it('finds a message before a compaction on its own segment, to its last descendant there', () => {
    const chain = chainOfHit(entries, 'a1');
    expect(uuids(chain?.entries ?? [])).toEqual(['a1', 'a2']);
    expect(segmentOf(entries, chain as NonNullable<typeof chain>, false)).toEqual({ index: 0, of: 2, active: false });
  });

  it('finds a message on a rewound branch with what followed it there', () => {
    const chain = chainOfHit(entries, 'x1');
    expect(uuids(chain?.entries ?? [])).toEqual(['c', 's', 'd1', 'd2', 'x1', 'x2']);
    expect(segmentOf(entries, chain as NonNullable<typeof chain>, false)).toEqual({ index: 1, of: 2, active: false });
  });

  it('says the active conversation is the last segment; null for an unknown uuid', () => {
    expect(segmentOf(entries, activeConversation(entries), true)).toEqual({ index: 1, of: 2, active: true });
    expect(chainOfHit(entries, 'nope')).toBeNull();
  });
});
