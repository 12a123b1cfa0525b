#!/usr/bin/env node
/**
 * memd: the daemon, in the foreground. Wiring only: lifecycle/bootstrap.ts starts the process;
 * here each part is built from the parts above it and no part calls into one built after it
 * (test/architecture/build-order.test.ts holds main.ts to that), the reactions are subscribed in
 * the order they run for one event, and the socket opens last. A part's construction lives in its
 * domain's part.ts, its reactions in its reactions.ts, its methods in rpc/methods/.
 */
import { MEMD_VERSION } from '../shared/version.js';
import { createDeletionBook } from './archive/deletions.js';
import { buildArchive } from './archive/part.js';
import { createArchiveStore } from './archive/store.js';
import { startAutoCompaction } from './compaction/auto-trigger.js';
import { buildCompaction } from './compaction/part.js';
import { buildExport } from './export/part.js';
import { createJobStore } from './extraction/jobs.js';
import { buildExtraction, lastExtractionOf } from './extraction/part.js';
import { extractOnCommit, renewHoldsOnCommit } from './extraction/reactions.js';
import { buildHandoff } from './handoff/part.js';
import { checkHooksOnCommit } from './handoff/reactions.js';
import { buildIngest, createIngestParser, followIndex, type LineParser, rereadOnRebuild } from './ingest/index.js';
import { createBase } from './lifecycle/base.js';
import { bootstrap, fail, type Started } from './lifecycle/bootstrap.js';
import { createDaemonShutdown, shutDownOnSignals } from './lifecycle/daemon-shutdown.js';
import { tuneHeap } from './lifecycle/heap.js';
import { createSocketPlace, openSocket } from './lifecycle/listen.js';
import { watchLoopDelay } from './lifecycle/loop-delay.js';
import { buildMemory } from './memory/part.js';
import { removeUnfinishedUndoPoints } from './memory/rewind/undo-store.js';
import { buildRecall } from './recall/part.js';
import { daemonMethods } from './rpc/methods/daemon.js';
import { buildRpc } from './rpc/part.js';
import { buildSearch } from './search/part.js';
import { type CommittedRows, createAggregateStore } from './sessions/aggregates.js';
import { buildSessions } from './sessions/part.js';
import { followSessionChanges } from './sessions/reactions.js';
import { createSessionReports } from './sessions/reports.js';
import { createSessionWindows } from './sessions/windows.js';
import { createDbHealth } from './store/health.js';
import type { FileRow } from './store/rows.js';
import { deviceNameOf, loadDeviceId } from './sync/device.js';
import { buildSync } from './sync/part.js';
import { forgetEntriesOnRebuild } from './transcripts/reactions.js';
import { createTranscripts } from './transcripts/transcripts.js';
import { buildUsage } from './usage/part.js';
import { createUsageStatus } from './usage/status.js';

async function serve(started: Started<LineParser>): Promise<void> {
  const base = createBase(started);
  const { events, paths, log } = base;
  // This machine's device id (sync/device.ts), named in its tombstones and its subtree of the sync folder.
  const device = { id: await loadDeviceId(paths.stateDir), name: deviceNameOf(base.config.syncDeviceName) };

  // The aggregates ingest keeps in its transactions (counted from each session's last extraction), ingest, the read model.
  const jobs = createJobStore(base);
  const aggregates = createAggregateStore({ db: base.db, lastExtraction: lastExtractionOf(jobs) });
  // The usage book ranks and reports this machine's transcripts by its device among other machines'.
  const usage = buildUsage({ ...base, device });
  // The deletions on the record (issue 31), written in the transaction that marks a file gone.
  const deletions = createDeletionBook(base.db);
  const observer = {
    committed: (rows: CommittedRows) => aggregates.committed(rows),
    gone: (sessionId: string, file: FileRow) => {
      aggregates.gone(sessionId);
      deletions.record(file, base.clock());
    },
  };
  const ingest = buildIngest({ ...base, parser: started.early, observer });
  const transcripts = createTranscripts(base);
  // Accounting: extraction and the archive's book come first, since every session summary shows what they hold.
  const windows = createSessionWindows(base.db, base.clock);
  const extraction = buildExtraction({ ...base, transcripts, jobs, aggregates, windows });
  const archived = createArchiveStore(base.db);
  // What the status lines report of the plan limits and the prompt cache, in memory (sessions/reports.ts).
  const reports = createSessionReports(base.clock);
  const sessions = buildSessions({
    ...base,
    ingest,
    transcripts,
    aggregates,
    windows,
    extraction,
    archived,
    reports,
    device,
  });
  // What is made from sessions: memory, handoffs and hooks, compaction, search, the archive, exports.
  const memory = buildMemory({ ...base, transcripts });
  const handoff = buildHandoff({ ...base, transcripts, memory });
  const compaction = buildCompaction({ ...base, transcripts, extraction, sessions });
  const search = buildSearch({ ...base, transcripts, sessions, extraction });
  // Recall (issue 33): what the prompt and failure hooks inject, from search, the read model and memdir.
  const recall = buildRecall({ ...base, transcripts, memory, search });
  const archive = buildArchive({ ...base, archived, deletions, transcripts, sessions, extraction, usage, device });
  // Sync across machines (issue 35): this machine's archive mirrored, the others' decoded and indexed.
  const sync = buildSync({ ...base, device, archived, archive, ingest });
  const exports = buildExport({
    ...base,
    transcripts,
    sessions,
    compactionScores: async (sessionId) => (await handoff.hooks.status(sessionId)).compactions,
  });
  // usage.status (issue 31): the forecasts over the summaries, the reports, the main transcripts' tails and the usage book.
  const usageStatus = createUsageStatus({
    clock: base.clock,
    summary: (sessionId) => sessions.get(sessionId),
    reports,
    mainTurnRows: (sessionId, enough, limits) => transcripts.mainTurnRows(sessionId, enough, limits),
    usage,
  });
  const dbHealth = createDbHealth({
    store: base.store,
    log,
    intervalMs: base.config.dbCheckMs,
    onRebuilt: () => events.publish('store.rebuilt', {}),
  });
  // The followers of the index: started after the backfill, fed each commit, stopped after ingest, in this order.
  const followers = [search, archive, usage, sync];

  // The event loop's delay is sampled while there is work: each request, and each event from before its first reaction.
  const loop = watchLoopDelay();
  events.listen(() => loop.busy());

  // The reactions, in the order they run for one event.
  forgetEntriesOnRebuild(events, transcripts);
  renewHoldsOnCommit(events, extraction);
  followSessionChanges(events, sessions);
  extractOnCommit(events, extraction);
  checkHooksOnCommit(events, handoff);
  followIndex(events, followers);
  startAutoCompaction(events, compaction);
  rereadOnRebuild(events, ingest, paths.projectsDir);

  // The socket: the methods over the parts, the shutdown, and the daemon's own methods (which report on both).
  const parts = {
    ...base,
    ingest,
    transcripts,
    aggregates,
    extraction,
    sessions,
    reports,
    memory,
    handoff,
    compaction,
    search,
    recall,
    archive,
    sync,
    usage,
    usageStatus,
    exports,
    dbHealth,
    followers,
  };
  const rpc = buildRpc({ ...parts, onRequest: () => loop.busy() });
  const socket = createSocketPlace(paths.socketPath, base.activatedFd);
  const shutdown = createDaemonShutdown({ ...parts, rpc, socket });
  rpc.dispatcher.add(daemonMethods({ ...parts, rpc, loop, shutdown }));
  shutDownOnSignals(shutdown, log);
  if (!(await openSocket({ ...parts, rpc, socket, shutdown }))) return;
  ingest.watcher.start();
  extraction.start();
  log.info('ready', {
    pid: process.pid,
    version: MEMD_VERSION,
    socket: paths.socketPath,
    socketActivated: base.activatedFd !== undefined,
    stateDir: paths.stateDir,
  });
}

async function main(argv: string[]): Promise<void> {
  tuneHeap();
  // The parse worker is made before the store opens, so that it boots (about 80 ms) meanwhile.
  const started = await bootstrap(argv, () => createIngestParser({}), removeUnfinishedUndoPoints);
  if (started !== null) await serve(started);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
});
