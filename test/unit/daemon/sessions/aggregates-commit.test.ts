/**
 * A commit that holds a compaction, with its preserved segment and 64 rows before it: the context
 * is counted from the commit's own rows (aggregates.ts contextFromCommit), as a backfill's 4 MiB
 * commits of a big transcript do, so nothing is owed to a background count afterwards, and the
 * count is the one from scratch. Background counts are stopped here (`close()`), so a context
 * left owed would stay null.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ingestor } from '../../../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { createAggregateStore } from '../../../../daemon/sessions/aggregates.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { loadFileEntries, sessionFiles } from '../../../../daemon/transcripts/queries.js';
import { parseAggregate } from '../../../../shared/transcript/aggregate.js';
import { contextFromScratch, contextTokensOf } from '../../../../shared/transcript/aggregate-context.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { quietIngestor } from '../../../helpers/ingest.js';

/** A recorded session that Claude Code auto-compacted at its 75th and 148th lines (of 199); the second preserved lines 141-147. */
const FIXTURE = join(
  import.meta.dirname,
  '../../../fixtures/forecast/auto-compact/projects/-home-user-src-forecast/f03eca57-0000-4000-8000-000000000031.jsonl',
);
const SESSION = 'f03eca57-0000-4000-8000-000000000031';
/** The first lines, ingested on their own: the rest, an append with 64 rows before the second compaction's segment. */
const FIRST_LINES = 76;

let dir: string;
let store: Store;
const started: Ingestor[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((ingest) => ingest.stop()));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a commit holding a compaction', () => {
  it('has its context counted from its own rows, not owed to a count of the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'memd-aggregates-commit-'));
    const root = join(dir, 'projects');
    const project = join(root, '-home-user-src-forecast');
    mkdirSync(project, { recursive: true });
    store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
    const aggregates = createAggregateStore({ db: store.db, lastExtraction: () => null });
    aggregates.close();
    const ingest = quietIngestor(store.db, root, { parseInWorker: false, observer: aggregates });
    started.push(ingest);
    const lines = readFileSync(FIXTURE, 'utf8').split('\n');
    const path = join(project, `${SESSION}.jsonl`);
    writeFileSync(path, `${lines.slice(0, FIRST_LINES).join('\n')}\n`);
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();
    appendFileSync(path, lines.slice(FIRST_LINES).join('\n'));
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();

    const state = parseAggregate(
      store.db.prepare('SELECT state FROM session_aggregates WHERE session_id = ?').pluck().get(SESSION) as string,
    );
    const main = sessionFiles(store.db, SESSION)[0];
    expect(main?.entries).toBeGreaterThan(150);
    const scratch = contextFromScratch(loadFileEntries(store.db, main?.id ?? -1), null);
    expect(state?.context).not.toBeNull();
    expect(state?.context?.boundaryOffset).toBe(scratch.boundaryOffset);
    expect(state?.context?.leaf).toBe(scratch.leaf);
    expect(contextTokensOf(state?.context ?? scratch)).toBe(contextTokensOf(scratch));
  });
});
