// `npm run bench -- sync [--size 600M]`: a second machine's archive arriving at once (issue 35). A
// first memd (the "laptop") backfills the scale corpus twice from a fresh state (the faster is the
// local rate: this machine's speed drifts by half between minutes), then archives it and mirrors
// the archive into its subtree of a sync folder. Then a second memd (the "desktop"), idle with a
// sync folder of its own, receives the laptop's whole subtree at once (moved into its sync folder,
// as an engine's finished copy lands) and decodes and indexes it: its rate against the local one,
// and daemon.status's p99 and worst from a parallel client meanwhile. The desktop looks at its
// folder every SCAN_MS (the default is 5 s: what it adds is the wait, not the rate).

import { cpSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, makeSandbox, ROOT } from './lib.js';
import { caughtUp, startDaemon, startProbe, until } from './scale.js';
import { parseSize, writeScaleCorpus } from './scale-corpus.js';

const MB = 1024 * 1024;
/** The issue's corpus: a 600 MB history. */
const DEFAULT_BYTES = 600 * MB;
const TARGETS = { statusP99Ms: 100, rateShare: 0.5 };
/** Decoding and indexing 600 MB takes seconds; a bound for a stuck run. */
const RECEIVE_DEADLINE_MS = 600_000;
const pass = (ok) => (ok ? 'PASS' : 'FAIL');
/** The desktop's look at its folder: often, so that the figure is the decode and index rate. */
const SCAN_MS = 250;
/** Local backfills measured; the fastest counts. */
const LOCAL_RUNS = 2;

function machine(name) {
  const sandbox = makeSandbox();
  const syncDir = join(sandbox.root, 'sync');
  mkdirSync(syncDir, { mode: 0o700 });
  mkdirSync(sandbox.env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  const env = {
    ...sandbox.env,
    MEMD_SYNC_DIR: syncDir,
    MEMD_SYNC_DEVICE_NAME: name,
    MEMD_SYNC_SCAN_MS: String(SCAN_MS),
    MEMD_BACKFILL_EXTRACTIONS: '0',
  };
  return { sandbox, syncDir, env };
}

export async function benchSync(options = {}) {
  const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
  const laptop = machine('laptop');
  const desktop = machine('desktop');
  const results = [];
  const report = (line, ok) => {
    console.log(`  ${line}${ok === undefined ? '' : `: ${pass(ok)}`}`);
    if (ok !== undefined) results.push(ok);
  };
  const running = [];
  let probe;
  try {
    const corpus = writeScaleCorpus(
      laptop.env.MEMD_PROJECTS_DIR,
      options.size === undefined ? DEFAULT_BYTES : parseSize(options.size),
    );
    console.log(`sync: ${fmt(corpus.bytes / MB)} MB, ${corpus.sessions} sessions, ${corpus.files.length} files`);

    const localRuns = [];
    for (let run = 1; run < LOCAL_RUNS; run++) {
      const trial = await startDaemon(createClient, { ...laptop.env, MEMD_SYNC_DIR: '' });
      await caughtUp(trial.client, corpus.bytes);
      localRuns.push((await trial.client.daemonStatus()).ingest.progress.backfillMs);
      trial.client.close();
      await trial.daemon.stop();
      rmSync(laptop.env.XDG_STATE_HOME, { recursive: true, force: true });
    }
    const origin = await startDaemon(createClient, laptop.env);
    running.push(origin);
    await caughtUp(origin.client, corpus.bytes);
    localRuns.push((await origin.client.daemonStatus()).ingest.progress.backfillMs);
    const localMs = Math.min(...localRuns);
    const localRate = corpus.bytes / MB / (localMs / 1000);
    await until(
      async () => {
        const [{ archive }, sync] = await Promise.all([origin.client.daemonStatus(), origin.client.syncStatus({})]);
        return (
          archive.state === 'live' &&
          archive.pendingBytes === 0 &&
          sync.self !== null &&
          sync.self.behind === 0 &&
          sync.self.files === archive.files
        );
      },
      'the laptop to archive and mirror its history',
      RECEIVE_DEADLINE_MS,
    );
    const shared = (await origin.client.syncStatus({})).self;
    report(
      `laptop: backfill ${localRuns.map((ms) => fmt(ms / 1000, 2)).join(', ')} s (${fmt(localRate)} MB/s at the fastest: the local rate); mirrored ${shared.files} archive files, ${fmt(shared.bytes / MB)} MB gzipped`,
    );
    origin.client.close();
    await origin.daemon.stop();
    running.pop();

    const receiver = await startDaemon(createClient, desktop.env);
    running.push(receiver);
    await until(async () => (await receiver.client.syncStatus({})).state === 'idle', 'the desktop to be idle');
    // The laptop's subtree lands at once: copied beside the folder first, then moved in.
    const device = (await receiver.client.callRaw('sync.status', {})).self.id;
    const laptopId = readdirSync(laptop.syncDir)[0];
    const staging = join(desktop.sandbox.root, 'staging');
    cpSync(join(laptop.syncDir, laptopId), staging, { recursive: true });
    probe = startProbe(desktop.env);
    await probe.spread();
    const started = performance.now();
    renameSync(staging, join(desktop.syncDir, laptopId));
    let decodedMs = null;
    await until(
      async () => {
        const [status, sync] = await Promise.all([receiver.client.daemonStatus(), receiver.client.syncStatus({})]);
        const from = sync.devices.find((seen) => seen.id === laptopId);
        if (decodedMs === null && from !== undefined && from.sourceBytes >= corpus.bytes)
          decodedMs = performance.now() - started;
        return (
          from !== undefined &&
          from.files === shared.files &&
          from.behind === 0 &&
          status.ingest.progress.filesPending === 0 &&
          status.ingest.stats.bytesRead >= corpus.bytes
        );
      },
      'the desktop to decode and index the laptop archive',
      RECEIVE_DEADLINE_MS,
    );
    const receiveMs = performance.now() - started;
    const spread = await probe.spread();
    await probe.stop();
    probe = undefined;
    const rate = corpus.bytes / MB / (receiveMs / 1000);
    const from = (await receiver.client.syncStatus({})).devices.find((seen) => seen.id === laptopId);
    report(
      `desktop (${device}): the laptop's archive decoded in ${fmt(decodedMs / 1000, 2)} s, and indexed in ${fmt(receiveMs / 1000, 2)} s: ${fmt(rate)} MB/s of transcripts, ${fmt(rate / localRate, 2)}× the local backfill (target >= ${TARGETS.rateShare}×); ${from.sessions} sessions, ${from.files} files, ${from.problems} problems`,
      rate / localRate >= TARGETS.rateShare && from.problems === 0,
    );
    report(
      `daemon.status meanwhile: p99 ${fmt(spread.p99Ms)} ms, worst ${fmt(spread.worstMs)} ms over ${spread.calls} calls (target p99 <= ${TARGETS.statusP99Ms} ms)`,
      spread.p99Ms <= TARGETS.statusP99Ms,
    );
  } finally {
    await probe?.stop();
    for (const { client, daemon } of running) {
      client.close();
      await daemon.stop();
    }
    laptop.sandbox.cleanup();
    desktop.sandbox.cleanup();
  }
  return results.every(Boolean);
}
