/**
 * Section 3 of the offline compaction summary knows the files a compaction hid (issue 32, F): a
 * file changed before the last compact_boundary is listed with its status then, through the path
 * the daemon takes (summaryCompaction reads the calls before the boundary for the offline
 * summarizer), and the earlier summary's item about a listed file gives way to the file's line,
 * which keeps what the item said and the lines under it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesAndCode } from '../../../../daemon/compaction/offline-files.js';
import { createOfflineCompactionSummarizer } from '../../../../daemon/compaction/offline-summary.js';
import { type CompactionSummarizer, summaryCompaction } from '../../../../daemon/compaction/summary.js';
import type { FileEntry } from '../../../../daemon/extraction/progress.js';
import { readTranscript } from '../../../../daemon/transcripts/facts.js';
import { transcript } from '../../../helpers/bash-session.js';
import type { IngestedSession } from '../../../helpers/compact.js';
import { CACHE_NOTE, HIDDEN_CWD, ingestHiddenFiles } from '../../../helpers/compacted-session.js';

let dir: string;
let session: IngestedSession;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memd-offline-files-'));
  session = await ingestHiddenFiles(dir);
});
afterAll(() => {
  session.close();
  rmSync(dir, { recursive: true, force: true });
});

const sectionThree = (summary: string) => summary.slice(summary.indexOf('3. Files'), summary.indexOf('4. Errors'));

describe('the offline compaction summary of a compacted session', () => {
  it('lists the files changed before the compaction with their status, the summary items giving way', async () => {
    const done = await summaryCompaction(session.conversation(), createOfflineCompactionSummarizer());
    const lines = sectionThree(done.summary).split('\n');
    expect(lines.slice(1, 5)).toEqual([
      `   - ${HIDDEN_CWD}/data/fixtures.json: read before the last compaction`,
      `   - ${HIDDEN_CWD}/store/cache.py: edited before the last compaction — ${CACHE_NOTE}`,
      `   - ${HIDDEN_CWD}/tests/test_cache.py: created before the last compaction — the expiry test`,
      `   - ${HIDDEN_CWD}/config.ini: edited before the last compaction — ttl set to 60`,
    ]);
    expect(lines[5]).toBe(`   - ${HIDDEN_CWD}/store/ttl.py: edited`);
    // Every item of the earlier section is about a listed file: nothing of it is carried apart.
    expect(sectionThree(done.summary)).not.toMatch(/Earlier \(from the previous summary\)|missing\.py/);
  });

  it('offers the calls before the compaction to the summarizer, read only when it asks (a model does not)', async () => {
    let asked = false;
    const model: CompactionSummarizer = {
      summarize: async (input) => {
        asked = input.earlier !== undefined;
        return `<summary>${'a model summary of the session. '.repeat(40)}</summary>`;
      },
    };
    await summaryCompaction(session.conversation(), model);
    expect(asked).toBe(true);
  });

  it('stops when the request is cancelled while the calls before the compaction are read', async () => {
    await expect(
      summaryCompaction(session.conversation(), createOfflineCompactionSummarizer(), undefined, AbortSignal.abort()),
    ).rejects.toThrow();
  });
});

describe('filesAndCode', () => {
  const { calls, cwd } = readTranscript(
    transcript().prompt('Go on.').bash("sed -i 's/1/2/' src/a.ts", '').reply('Done.').loaded,
  );
  const before = new Map<string, FileEntry>([
    ['/home/u/shop/src/b.ts', { path: '/home/u/shop/src/b.ts', status: 'created', order: 0 }],
  ]);

  it('moves an earlier item about a listed file under its line, with the lines under it; other items stay', () => {
    const earlier = [
      '- `src/a.ts`',
      '   - Why it matters: the parser',
      '   - ```ts',
      '     export const a = 1;',
      '     ```',
      '- src/b.ts — the new module',
      '- docs/notes.md — read for the format',
    ].join('\n');
    expect(filesAndCode({ calls, before, cwd, earlier })).toEqual([
      '   Earlier (from the previous summary):',
      '      - docs/notes.md — read for the format',
      '   - /home/u/shop/src/b.ts: created before the last compaction — the new module',
      '   - /home/u/shop/src/a.ts: edited by Bash',
      '      - Why it matters: the parser',
      '      - ```ts',
      '        export const a = 1;',
      '        ```',
    ]);
  });

  it('says nothing of before without a compaction', () => {
    expect(filesAndCode({ calls, before: new Map(), cwd, earlier: undefined })).toEqual([
      '   - /home/u/shop/src/a.ts: edited by Bash',
    ]);
  });
});
