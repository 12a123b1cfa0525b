import { describe, expect, it } from 'vitest';
import { type BoundaryRecord, createCompactionWatch } from '../../../../daemon/handoff/compaction-watch.js';
import type { IngestedFile } from '../../../../daemon/store/rows.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';

const HOUR = 60 * 60_000;
const NOW = Date.parse('2026-12-05T12:00:00.000Z');

const entry = (offset: number, fields: Partial<IndexedEntry>): IndexedEntry =>
  ({
    offset,
    uuid: `u${offset}`,
    type: 'user',
    subtype: null,
    timestamp: new Date(NOW).toISOString(),
    ...fields,
  }) as IndexedEntry;

/** A session whose main transcript ends in a compaction at `at`, its summary right after. */
function watched(at: number) {
  const stamp = new Date(at).toISOString();
  const entries = [
    entry(0, { timestamp: new Date(at - HOUR).toISOString() }),
    entry(10, { type: 'system', subtype: 'compact_boundary', timestamp: stamp }),
    entry(20, { timestamp: stamp }),
  ];
  const file = { id: 1, path: '/p/s.jsonl', agentId: null, lastActivity: stamp } as IngestedFile;
  const loads: string[] = [];
  const recorded: BoundaryRecord[] = [];
  const watch = createCompactionWatch({
    clock: () => NOW,
    transcripts: {
      files: () => [file],
      mainEntries: async (sessionId) => {
        loads.push(sessionId);
        return { file, entries };
      },
      read: async (_path, wanted) =>
        wanted.map((found) => ({
          entry: found,
          raw:
            found.offset === 20
              ? { isCompactSummary: true, message: { content: 'the summary' } }
              : { compactMetadata: { trigger: 'auto' } },
        })) as never,
    },
    record: async (compaction) => {
      recorded.push(compaction);
    },
  });
  return { watch, loads, recorded };
}

describe('compaction watch', () => {
  it('records a compaction of the last hour from the transcript', async () => {
    const { watch, recorded } = watched(NOW - 5 * 60_000);
    await watch.check('s');
    expect(recorded.map(({ trigger, summary }) => ({ trigger, summary }))).toEqual([
      { trigger: 'auto', summary: 'the summary' },
    ]);
  });

  it('does not load the entries of a session quiet for the last hour (a backfill reads every session once)', async () => {
    const { watch, loads, recorded } = watched(NOW - 2 * HOUR);
    await watch.check('s');
    expect(loads).toEqual([]);
    expect(recorded).toEqual([]);
  });
});
