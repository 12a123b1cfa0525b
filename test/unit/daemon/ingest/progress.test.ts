import { describe, expect, it } from 'vitest';
import { createBackfillProgress } from '../../../../daemon/ingest/progress.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

describe('the backfill progress', () => {
  it('is starting, then backfilling until every file is read once, then live; done is told once', () => {
    let now = 1_000;
    let done = 0;
    const log = fakeLogger();
    const progress = createBackfillProgress({ log, clock: () => now, onBackfillDone: () => (done += 1) });
    expect(progress.snapshot(0, false).state).toBe('starting');
    progress.begin();
    progress.add('/p/a.jsonl', 300);
    progress.add('/p/b.jsonl', 100);
    progress.addDone();
    progress.committed('/p/a.jsonl', 200);
    progress.committed('/p/live.jsonl', 5_000);
    now = 1_500;
    expect(progress.snapshot(2, true)).toEqual({
      state: 'backfilling',
      watching: true,
      filesDone: 1,
      filesTotal: 3,
      bytesDone: 200,
      bytesTotal: 400,
      filesPending: 2,
      backfillStartedAt: new Date(1_000).toISOString(),
      backfillMs: null,
      // Too early to tell (start-up costs make the first second's rate a guess).
      backfillEtaMs: null,
    });
    now = 3_000;
    // Half read in 2 s: about 2 s left.
    progress.committed('/p/b.jsonl', 0);
    expect(progress.snapshot(1, true).backfillEtaMs).toBe(2_000);
    progress.finish('/p/a.jsonl');
    progress.finish('/p/b.jsonl');
    progress.finish('/p/b.jsonl');
    progress.doneIfEmpty();
    expect(progress.snapshot(0, true)).toMatchObject({ state: 'live', filesDone: 3, backfillMs: 2_000 });
    expect(done).toBe(1);
    expect(log.at('info').map((line) => line.msg)).toEqual(['backfill done']);
  });

  it('counts no more bytes done than there are, and survives a failing onBackfillDone', () => {
    const log = fakeLogger();
    const progress = createBackfillProgress({
      log,
      clock: () => 0,
      onBackfillDone: () => {
        throw new Error('listener failed');
      },
    });
    progress.begin();
    progress.add('/p/a.jsonl', 10);
    progress.committed('/p/a.jsonl', 25);
    expect(progress.snapshot(1, false).bytesDone).toBe(10);
    progress.finish('/p/a.jsonl');
    expect(log.at('error').map((line) => line.msg)).toEqual(['onBackfillDone failed']);
  });

  it("estimates the time left at the last ten seconds' rate, not the rate since the start", () => {
    let now = 0;
    const progress = createBackfillProgress({ log: fakeLogger(), clock: () => now, onBackfillDone: () => {} });
    progress.begin();
    progress.add('/p/a.jsonl', 1_000);
    progress.committed('/p/a.jsonl', 100);
    now = 20_000;
    progress.committed('/p/a.jsonl', 100);
    now = 30_000;
    progress.committed('/p/a.jsonl', 200);
    // 200 bytes in the last 10 s, 600 left: 30 s (the rate since the start would say 45 s).
    expect(progress.snapshot(1, true).backfillEtaMs).toBe(30_000);
  });

  it('tells a later backfill drained once it is read and no hold is open, and is backfilling meanwhile', () => {
    let drained = 0;
    const progress = createBackfillProgress({
      log: fakeLogger(),
      clock: () => 0,
      onBackfillDone: () => undefined,
      onDrained: () => (drained += 1),
    });
    progress.begin();
    progress.doneIfEmpty();
    // Another machine's history, handed over in two batches under a hold.
    const release = progress.hold();
    progress.add('/s/a.jsonl', 10);
    progress.finish('/s/a.jsonl');
    expect(progress.snapshot(0, true).state).toBe('backfilling');
    progress.add('/s/b.jsonl', 10);
    release();
    expect(drained).toBe(0);
    progress.finish('/s/b.jsonl');
    expect(drained).toBe(1);
    expect(progress.snapshot(0, true).state).toBe('live');
    release();
    expect(drained).toBe(1);
  });
});
