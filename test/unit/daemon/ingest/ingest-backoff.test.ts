/**
 * The ingestor backs off a failing pass instead of running it again at once (issue 13 item 8),
 * over a real SQLite store made to fail for real: `max_page_count` at the current size makes every
 * write SQLITE_FULL, as a full disk does. The parse fault comes from a parser whose first chunks
 * reject, as a parse worker that died does.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import { ingestStats } from '../../../../daemon/ingest/index-rows.js';
import { createIngestor, DEFAULT_LANES, type Ingestor, type IngestorDeps } from '../../../../daemon/ingest/ingestor.js';
import { createInlineParser, type LineParser } from '../../../../daemon/ingest/parser.js';
import { RETRY_FIRST_MS } from '../../../../daemon/ingest/retries.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { type FakeLogger, fakeLogger } from '../../../helpers/fake-logger.js';
import { eventually } from '../../../helpers/poll.js';

let dir: string;
let root: string;
let store: Store;
let log: FakeLogger;
const started: Ingestor[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-backoff-'));
  root = join(dir, 'projects');
  mkdirSync(join(root, 'p'), { recursive: true });
  store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  log = fakeLogger();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((ingest) => ingest.stop()));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function ingestor(options: Partial<IngestorDeps> = {}): Ingestor {
  const ingest = createIngestor({
    db: store.db,
    bus: createBus(() => {}),
    log,
    clock: () => Date.now(),
    projectsDir: root,
    onSessionsChanged: () => {},
    parseInWorker: false,
    ...options,
  });
  started.push(ingest);
  return ingest;
}

const line = (n: number) =>
  `{"type":"user","uuid":"u${n}","message":{"role":"user","content":"message ${n} ${'x'.repeat(200)}"}}\n`;

function session(id: string, lines: number): string {
  const path = join(root, 'p', `${id}.jsonl`);
  writeFileSync(path, Array.from({ length: lines }, (_, n) => line(n)).join(''));
  return path;
}

describe('backoff of failing passes', () => {
  it('pauses ingest while the store is full, retries on the backoff, and recovers once it takes writes', async () => {
    const path = session('big', 2_000);
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages}`);
    const ingest = ingestor();
    ingest.backfill(await scanTranscripts(root), []);
    await eventually(() => ingest.status().failing.length > 0, 'the store fault');
    const failedAt = Date.now();
    expect(ingest.status()).toMatchObject({
      failingCount: 1,
      failing: [{ kind: 'store', code: 'SQLITE_FULL', path, failures: 1 }],
    });
    // Through the second retry (1 s, then 2 s after it): three attempts, not hundreds.
    await eventually(() => (ingest.status().failing[0]?.failures ?? 0) >= 3, 'two retries');
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(3 * RETRY_FIRST_MS - 100);
    const { bytesReadThisRun } = ingest.status().stats;
    expect(bytesReadThisRun).toBeLessThanOrEqual(
      ((ingest.status().failing[0]?.failures ?? 0) + 1) * statSync(path).size,
    );
    // The file waits in the queue, not counted as read.
    expect(ingest.progress()).toMatchObject({ state: 'backfilling', filesPending: 1 });
    store.db.pragma('max_page_count = 1073741823');
    await ingest.idle();
    expect(ingest.status()).toMatchObject({ failing: [], failingCount: 0 });
    expect(ingestStats(store.db)).toMatchObject({ files: 1, entries: 2_000 });
    expect(log.lines.filter((logged) => logged.level !== 'debug').map((logged) => [logged.level, logged.msg])).toEqual([
      ['warn', 'cannot write the transcript index; ingest is paused and retried with backoff'],
      ['info', expect.stringMatching(/^transcript index writes recovered after [34] failures$/)],
      ['info', 'backfill done'],
    ]);
  });

  it('backs off a file the parser fails on, and reads the other files meanwhile', async () => {
    const bad = session('bad', 3);
    session('fine', 3);
    // Slots so small that these files are not read in a group pass (which reads a failed group's files one by one).
    const inline = createInlineParser({
      lanes: DEFAULT_LANES,
      slotBytes: 2048,
      maxLineBytes: 1024 * 1024,
      carryBudgetBytes: 1024 * 1024,
    });
    let rejections = 2;
    const current = new Map<number, string>();
    const parser: LineParser = {
      ...inline,
      lanes: inline.lanes,
      slotBytes: inline.slotBytes,
      begin(lane, pass) {
        current.set(lane, pass.path);
        return inline.begin(lane, pass);
      },
      parse(lane, slot, length, at) {
        if (current.get(lane) === bad && rejections > 0) {
          rejections -= 1;
          return Promise.reject(new Error('the parse worker exited with code 1'));
        }
        return inline.parse(lane, slot, length, at);
      },
    };
    const ingest = ingestor({ parser });
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();
    expect(ingestStats(store.db).entries).toBe(3);
    expect(ingest.status().failing).toMatchObject([{ path: bad, kind: 'parse', failures: 1 }]);
    // A change does not bring a parse fault forward.
    ingest.touch(bad);
    expect(ingest.isPending(bad)).toBe(false);
    await eventually(() => ingest.status().failing[0]?.failures === 2, 'the retry');
    await eventually(() => ingest.status().failingCount === 0, 'the recovery');
    expect(ingestStats(store.db).entries).toBe(6);
    expect(log.at('warn').map((logged) => logged.msg)).toEqual(['cannot ingest transcript; retried with backoff']);
    expect(log.at('info').map((logged) => logged.msg)).toContain('transcript recovered after 2 failures');
  });
});
