import { describe, expect, it } from 'vitest';
import { plainOutput } from '../../../../../client/memctl/output.js';
import { renderHistory } from '../../../../../client/memctl/views/history.js';
import type { HistoryEntry, HistoryPaste } from '../../../../../shared/protocol/history.js';

const plain = plainOutput();

function paste(id: number, missing = false): HistoryPaste {
  return {
    id,
    type: 'text',
    content: missing ? null : 'x',
    contentHash: missing ? 'abcdef0123456789' : null,
    missing,
    chars: missing ? null : 1,
  };
}

function entry(display: string, pastes: HistoryPaste[] = []): HistoryEntry {
  return { display, timestamp: '2026-03-04T05:06:07.000Z', project: '/home/user/src/shop', sessionId: 's', pastes };
}

describe('memctl history rows', () => {
  it('show one row per prompt, cut to the width, with its pastes', () => {
    const rows = renderHistory(
      {
        entries: [
          entry('fix\nthe   bug'),
          entry('y'.repeat(500), [paste(1), paste(2)]),
          entry('log: [Pasted text #1]', [paste(1, true)]),
          entry('two', [paste(1), paste(2, true)]),
        ],
        nextBefore: null,
        badLines: 0,
      },
      plain,
      80,
    );
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}src\/shop {14}fix the bug$/);
    expect(rows[1]?.length).toBe(80);
    expect(rows[1]).toMatch(/y… {2}\+2 pastes$/);
    expect(rows[2]).toMatch(/log: \[Pasted text #1\] {2}\(paste missing\)$/);
    expect(rows[3]).toMatch(/two {2}\+2 pastes \(1 missing\)$/);
  });

  it('say where older prompts are and how many lines were unreadable', () => {
    const rows = renderHistory(
      { entries: [entry('a')], nextBefore: '2026-03-04T05:06:07.000Z', badLines: 2 },
      plain,
      80,
    );
    expect(rows.slice(1)).toEqual([
      '2 unreadable lines of history.jsonl skipped',
      'older prompts: run again with --before 2026-03-04T05:06:07.000Z',
    ]);
    expect(renderHistory({ entries: [], nextBefore: null, badLines: 0 }, plain)).toEqual(['no prompts in the history']);
  });
});
