/**
 * The session memory is of the whole session (issue 32, F): a file changed before a compaction is
 * a file changed in this session, with its status, though after the compact_boundary only Claude
 * Code's summary names it, without one. Before this change the memory carried the summary's line
 * (`store/cache.py — added a TTL…`), which says nothing of an edit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor } from '../../../../daemon/extraction/extract.js';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import { SESSION_MEMORY_TEMPLATE } from '../../../../daemon/extraction/template.js';
import { loadEarlierCalls } from '../../../../daemon/transcripts/earlier.js';
import type { IngestedSession } from '../../../helpers/compact.js';
import { CACHE_NOTE, HIDDEN_CWD, HIDDEN_SESSION, ingestHiddenFiles } from '../../../helpers/compacted-session.js';

let dir: string;
let session: IngestedSession;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memd-hidden-files-'));
  session = await ingestHiddenFiles(dir);
});
afterAll(() => {
  session.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The Files and Functions section's lines. */
function filesOf(memory: string): string[] {
  const start = memory.indexOf('# Files and Functions\n');
  const end = memory.indexOf('\n# ', start + 1);
  return memory
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('- '));
}

const EXPECTED = [
  `- \`${HIDDEN_CWD}/data/fixtures.json\` — read`,
  `- \`${HIDDEN_CWD}/store/cache.py\` — edited; earlier: ${CACHE_NOTE}`,
  `- \`${HIDDEN_CWD}/tests/test_cache.py\` — created; earlier: the expiry test`,
  `- \`${HIDDEN_CWD}/config.ini\` — edited; earlier: ttl set to 60`,
];

describe('the offline session memory of a compacted session', () => {
  it('lists the files changed before the compaction with their status; the summary line about each gives way', () => {
    const { loaded, file, entries, active } = session.conversation();
    const lines = filesOf(offlineSessionMemory({ loaded, earlier: loadEarlierCalls(file.path, entries, active) }));
    expect(lines.slice(0, EXPECTED.length)).toEqual(EXPECTED);
    expect(lines).toContainEqual(expect.stringMatching(/store\/ttl\.py` — edited/));
    // A failed edit changed nothing; the summary's own lines about listed files are gone.
    expect(lines.join('\n')).not.toMatch(/missing\.py|^- store\/cache\.py/m);
  });

  it('without the calls before the compaction, knew only the summary line (what it did before)', () => {
    const lines = filesOf(offlineSessionMemory({ loaded: session.conversation().loaded }));
    expect(lines).toContain(`- store/cache.py — ${CACHE_NOTE}`);
    expect(lines.join('\n')).not.toContain('cache.py` — edited');
  });

  it('is written so by the extraction worker, which reads the calls before the compaction itself', async () => {
    const extractor = createExtractor(null);
    try {
      const done = await extractor.run({
        sessionId: HIDDEN_SESSION,
        dbPath: join(dir, 'memd.sqlite'),
        path: session.conversation().file.path,
        entries: async () => session.conversation().entries,
        lastExtraction: null,
        sinceUuid: null,
        previous: null,
        template: SESSION_MEMORY_TEMPLATE,
        signal: new AbortController().signal,
      });
      expect(filesOf(done.text).slice(0, EXPECTED.length)).toEqual(EXPECTED);
    } finally {
      await extractor.close();
    }
  });
});
