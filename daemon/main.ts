#!/usr/bin/env node
/**
 * memd: the daemon, in the foreground. Wiring only: lifecycle/bootstrap.ts starts the process,
 * then the parts are built here in dependency order (each gets only parts built before it),
 * their internal reactions go through the domain bus, and the socket opens last.
 */
import { accountingOf } from '../shared/transcript/aggregate.js';
import { priceFor } from '../shared/transcript/models.js';
import { MEMD_VERSION } from '../shared/version.js';
import { createBus } from './bus/bus.js';
import { createDomainBus, on } from './bus/domain-events.js';
import { createAnthropicCompactionSummarizer } from './compaction/anthropic-summary.js';
import { startAutoCompaction } from './compaction/auto-trigger.js';
import { createLayers } from './compaction/layers.js';
import { createOfflineCompactionSummarizer } from './compaction/offline-summary.js';
import { createCompactionService } from './compaction/service.js';
import { createAnthropicMemorySummarizer } from './extraction/anthropic-extractor.js';
import { createExtractor } from './extraction/extract.js';
import { asLastExtraction, createJobStore } from './extraction/jobs.js';
import { createMemoryLocks } from './extraction/lock.js';
import { createExtractionService } from './extraction/service.js';
import { hasAllSections } from './extraction/template.js';
import { createHandoffService } from './handoff/service.js';
import { createHookRecords } from './handoff/hook-records.js';
import { createHookService } from './handoff/hooks.js';
import { createHandoffBindings } from './handoff/bindings.js';
import { createIngestor, createIngestParser, createWatcher, type LineParser, scanTranscripts } from './ingest/index.js';
import { tuneHeap } from './lifecycle/heap.js';
import { bootstrap, EXIT_FAILURE, fail, type Started } from './lifecycle/bootstrap.js';
import { createShutdown, inParallel, killSelf } from './lifecycle/shutdown.js';
import { ownSocket, type OwnSocket } from './lifecycle/socket-file.js';
import { modelAccess } from './llm/backends.js';
import { createMemdirStore } from './memory/memdir/store.js';
import { createRewindService } from './memory/rewind/service.js';
import { removeUnfinishedUndoPoints } from './memory/rewind/undo-store.js';
import { createDispatcher } from './rpc/dispatch.js';
import { compactionMethods } from './rpc/methods/compaction.js';
import { daemonMethods } from './rpc/methods/daemon.js';
import { watchLoopDelay } from './lifecycle/loop-delay.js';
import { eventMethods } from './rpc/methods/events.js';
import { extractionMethods } from './rpc/methods/extraction.js';
import { handoffMethods } from './rpc/methods/handoff.js';
import { historyMethods } from './rpc/methods/history.js';
import { searchMethods } from './rpc/methods/search.js';
import { usageMethods } from './rpc/methods/usage.js';
import { createUsageService } from './usage/service.js';
import { archiveMethods } from './rpc/methods/archive.js';
import { createArchiveService } from './archive/service.js';
import { exportMethods } from './rpc/methods/export.js';
import { createExportService } from './export/service.js';
import { openMainTranscript } from './export/source.js';
import { createSearchService } from './search/service.js';
import { hookMethods } from './rpc/methods/hooks.js';
import { memdirMethods } from './rpc/methods/memdir.js';
import { rewindMethods } from './rpc/methods/rewind.js';
import { sessionMethods } from './rpc/methods/sessions.js';
import { createRpcServer, type ListenTarget } from './rpc/server.js';
import { createSessionService } from './sessions/service.js';
import { createProjectResolver, projectNames } from './sessions/project-name.js';
import { createSessionWindows } from './sessions/windows.js';
import { createSessionIdResolver } from './sessions/short-id.js';
import { createAggregateStore } from './sessions/aggregates.js';
import { summarizeSession } from './sessions/summary.js';
import { createDbHealth } from './store/health.js';
import { createTranscripts } from './transcripts/transcripts.js';

/** Feature flags reported by daemon.version beside the method names. */
const FEATURES = ['events', 'cancel'] as const;

async function serve({ paths, resolved, log, lock, store, early: parser, activatedFd }: Started<LineParser>): Promise<void> {
  const { config } = resolved;
  const startedAt = new Date();
  const clock = () => Date.now();
  // Claude Code's own overrides (CLAUDE_CODE_AUTO_COMPACT_WINDOW, DISABLE_AUTO_COMPACT, ...) as the daemon sees them.
  const thresholdEnv = { ...process.env };
  const bus = createBus((error, topic) => log.error('event listener failed', { topic, error }));
  const events = createDomainBus((error, topic) => log.error('internal event listener failed', { topic, error }));
  const access = modelAccess(config, process.env, log);

  // Ingest, the aggregates it keeps in its transactions, then the read model over what it wrote.
  const jobs = createJobStore({ db: store.db, clock });
  const lastExtraction = (sessionId: string) => {
    const record = jobs.lastExtraction(sessionId);
    return record === null ? null : asLastExtraction(record);
  };
  const aggregates = createAggregateStore({ db: store.db, lastExtraction });
  const usage = createUsageService({ db: store.db, log, clock, projectNames: () => projectNames(store.db) });
  const ingestor = createIngestor({
    db: store.db,
    bus,
    log,
    clock,
    projectsDir: paths.projectsDir,
    onSessionsChanged: (sessionIds) => events.publish('transcripts.committed', { sessionIds, live: ingestor.progress().state === 'live' }),
    onBackfillDone: () => events.publish('transcripts.backfilled', {}),
    observer: aggregates,
    parser,
  });
  const transcripts = createTranscripts({ db: store.db });

  // Accounting: summaries, and the threshold states auto-compaction starts from.
  const windows = createSessionWindows(store.db, clock);
  const sessions = createSessionService({
    windows,
    sessionIndex: () => transcripts.sessions(),
    page: (query) => aggregates.page(query),
    summarize: (sessionId) => summarizeSession(transcripts, aggregates, sessionId, thresholdEnv, windows.forSession(sessionId)),
    sessionMemory: (sessionId) => extraction.memoryState(sessionId),
    // The archive is made below; asked only once requests are served.
    archived: (sessionId) => archive.isArchived(sessionId),
    bus,
    log,
    // Events no client subscribed to are not computed.
    wanted: (topic) => bus.wanted(topic),
    // Threshold states are, once ingest is live, clients or not: auto-compaction starts from them.
    // Not during the backfill: history is not compacted, and summarizing every session on the way
    // would fill the entry cache (RSS) and slow the backfill.
    statesWanted: () => ingestor.progress().state === 'live',
    clock,
    onState: (sessionId, state, previous) => events.publish('session.state', { sessionId, state, previous }),
  });

  // Jobs and results: extraction, compaction, hooks and handoffs, memory.
  const memdir = createMemdirStore({ projectsDir: paths.projectsDir, clock });
  // One record of which handoffs memd wrote, read by handoff.read and SessionStart alike (issue 27).
  const handoffBindings = createHandoffBindings({ stateDir: paths.stateDir, clock, log });
  const hooks = createHookService({ transcripts, records: createHookRecords(store.db), memdir, log, clock, bindings: handoffBindings });
  const anthropicMemory = access && createAnthropicMemorySummarizer({ ...access, model: config.model, validate: hasAllSections });
  const extraction = createExtractionService({
    transcripts,
    projectsDir: paths.projectsDir,
    claudeRoot: paths.claudeRoot,
    bus,
    log,
    clock,
    jobs,
    locks: createMemoryLocks({ log }),
    price: (model) => priceFor(model),
    triggerFigures: (sessionId) => {
      const counted = aggregates.read(sessionId);
      return counted === undefined || counted.entries.main === 0 ? null : accountingOf(counted, thresholdEnv, null, windows.forSession(sessionId));
    },
    sessionActivity: () => aggregates.activity(),
    extractor: createExtractor(anthropicMemory),
    onExtracted: (sessionId) => events.publish('extraction.done', { sessionId }),
    backfillExtractions: config.backfillExtractions,
    dailyBudgetUsd: config.extractionDailyBudgetUsd,
    onMemoryStateChanged: (sessionId) => sessions.onBackgroundChange(sessionId),
  });
  const modelSummarizer = access && createAnthropicCompactionSummarizer({ ...access, model: config.model });
  const offlineSummarizer = createOfflineCompactionSummarizer();
  const compaction = createCompactionService({
    transcripts,
    bus,
    log,
    clock,
    layers: createLayers({
      projectsDir: paths.projectsDir,
      summarizer: modelSummarizer ?? offlineSummarizer,
      // A model's fragment of a summary is replaced by the offline one, rebuilt from the transcript.
      ...(modelSummarizer === null ? {} : { fallbackSummarizer: offlineSummarizer }),
      microCompact: config.microCompact,
      lastSummarizedUuid: (sessionId) => extraction.lastSummarizedUuid(sessionId),
    }),
    thresholds: (sessionId) => sessions.get(sessionId).threshold,
    price: (sessionId) => priceFor(sessions.get(sessionId).model),
  });
  const handoff = createHandoffService({
    transcripts,
    projectsDir: paths.projectsDir,
    claudeRoot: paths.claudeRoot,
    log,
    clock,
    anthropic: access && { ...access, model: config.handoffModel },
    git: { timeoutMs: config.gitTimeoutMs },
    bindings: handoffBindings,
  });
  const search = createSearchService({
    db: store.db,
    dbPath: paths.dbPath,
    processes: config.searchProcesses,
    deadlineMs: config.searchDeadlineMs,
    log,
    clock,
    titleOf: (sessionId) => {
      try {
        return sessions.get(sessionId).title;
      } catch {
        return null;
      }
    },
    projectNames: () => projectNames(store.db),
    conversation: (sessionId, signal) => transcripts.conversation(sessionId, signal),
    read: (path, entries, signal) => transcripts.read(path, entries, signal),
    openTurns: () => extraction.agentSessions(),
  });
  const archive = createArchiveService({
    db: store.db,
    projectsDir: paths.projectsDir,
    stateDir: paths.stateDir,
    log,
    clock,
    enabled: config.archiveEnabled,
    capBytes: config.archiveMaxBytes,
    projectNames: () => projectNames(store.db),
    titleOf: (sessionId) => {
      try {
        return sessions.get(sessionId).title;
      } catch {
        return null;
      }
    },
    stopWork: (sessionId) => extraction.cancel(sessionId),
    // The usage book's share of the session's files is taken back with them.
    dropDerived: () => void usage.dropOrphans(),
    forgetInMemory: (sessionId) => {
      transcripts.clear();
      sessions.forgetAll();
      sessions.forgetSession(sessionId);
    },
  });
  const rewind = createRewindService({ transcripts, claudeRoot: paths.claudeRoot, stateDir: paths.stateDir, clock });
  // Every byte an export reads comes through openTranscript: the archive can stand in for a deleted transcript.
  const exports = createExportService({ transcripts, summary: (sessionId) => sessions.get(sessionId), env: thresholdEnv, openTranscript: openMainTranscript(transcripts), log });
  const watcher = createWatcher({ root: paths.projectsDir, ingestor, db: store.db, log, clock, sweepMs: config.ingestSweepMs });
  const dbHealth = createDbHealth({ store, log, intervalMs: config.dbCheckMs, onRebuilt: () => events.publish('store.rebuilt', {}) });

  // The internal reactions, in the order they run for one event.
  on(events, 'transcripts.committed', ({ sessionIds, live }) => {
    if (live) for (const sessionId of sessionIds) extraction.onSessionActive(sessionId);
    sessions.onSessionsChanged(sessionIds);
    // The backfill reads history, which is not summarized on the way: the sessions it changed
    // are extracted once it is done, at the lowest priority.
    for (const sessionId of sessionIds) {
      if (live) extraction.onSessionChanged(sessionId);
      else extraction.onSessionBackfilled(sessionId);
    }
    for (const sessionId of sessionIds) void hooks.onSessionChanged(sessionId);
    archive.archiver.committed();
    usage.committed();
  });
  on(events, 'transcripts.backfilled', () => {
    extraction.onBackfillDone();
    // Lines ingested before the search index existed are read once the backfill has the cores.
    search.start();
    // The history found at start is archived once it is indexed, oldest first.
    void archive.archiver.start();
    // The usage book follows the index from here on: what the backfill read is counted first.
    usage.start();
  });
  on(events, 'extraction.done', ({ sessionId }) => sessions.onBackgroundChange(sessionId));
  startAutoCompaction(events, compaction);
  // File ids now name other files: nothing cached survives, and every transcript is read again.
  on(events, 'store.rebuilt', () => {
    transcripts.clear();
    sessions.forgetAll();
    void scanTranscripts(paths.projectsDir).then((files) => files.forEach((file) => ingestor.touch(file.path)));
  });

  // The socket server, its shutdown, and the daemon's own methods (which report on both).
  const dispatcher = createDispatcher(
    [
      ...eventMethods(),
      ...sessionMethods(sessions, thresholdEnv),
      ...compactionMethods(compaction, paths.projectsDir),
      ...extractionMethods(extraction),
      ...memdirMethods(memdir),
      ...hookMethods(hooks, sessions),
      ...handoffMethods(handoff),
      ...historyMethods({ claudeRoot: paths.claudeRoot }),
      ...rewindMethods(rewind),
      ...searchMethods(search),
      ...usageMethods(usage),
      ...archiveMethods(archive),
      ...exportMethods(exports),
    ],
    log,
    createSessionIdResolver(store.db),
    createProjectResolver(store.db),
  );
  const rpc = createRpcServer({
    dispatcher,
    bus,
    log,
    maxConnections: config.maxConnections,
    limits: { idleMs: config.idleTimeoutMs, frameMs: config.frameTimeoutMs, stallMs: config.answerStallTimeoutMs },
    budget: { maxAnswerBytes: config.maxAnswerBytes, maxHeavyRequests: config.maxHeavyRequests },
  });
  // Set once listening on a path of our own; systemd owns an activated socket.
  let socketFile: OwnSocket | undefined;
  const shutdown = createShutdown(
    (reason) => [
      { name: 'announce', run: () => bus.publish('daemon.stopping', { reason }) },
      { name: 'stop accepting', run: () => rpc.stopAccepting(socketFile?.isOwn() ?? true) },
      { name: 'finish requests', run: async () => void (await rpc.drain(config.shutdownGraceMs)), pending: () => rpc.running() },
      // Always: a request still running past the deadline is cancelled (its git runs killed) too.
      { name: 'close connections', run: () => rpc.closeConnections(), always: true },
      // What was read is committed; the rest is read after the next start.
      {
        name: 'stop ingest',
        ...inParallel([
          { name: 'transcript watcher', run: () => watcher.stop() },
          { name: 'ingest lanes and parse worker', run: () => ingestor.stop(), detail: () => `${ingestor.progress().filesPending} transcripts being read` },
        ]),
      },
      // What ingest committed and the archive batched goes in now.
      { name: 'archive what was read', run: () => archive.archiver.flush() },
      { name: 'stop session updates', run: () => sessions.close() },
      { name: 'stop the search index build', run: () => search.stop() },
      { name: 'stop the usage book build', run: () => usage.stop() },
      { name: 'drop kept export reports', run: () => exports.close() },
      { name: 'stop background context counts', run: () => aggregates.close() },
      { name: 'stop compactions', run: () => compaction.close() },
      // Running summaries are aborted; their jobs stay queued and run after the next start.
      { name: 'stop extraction', run: () => extraction.close(), pending: () => extraction.status().running.map((id) => `extraction job of session ${id}`) },
      // Always, from here on: whatever is stuck, the next daemon must find the lock free.
      {
        name: 'close database',
        run: () => {
          dbHealth.stop();
          store.close();
        },
        always: true,
      },
      { name: 'remove socket', run: () => socketFile?.remove(), always: true },
      { name: 'release lock', run: () => lock.release(), always: true },
      { name: 'log stopped', run: () => log.info('stopped'), always: true },
    ],
    log,
    (code) => {
      log.close();
      process.exit(code);
    },
    {
      deadlineMs: config.shutdownDeadlineMs,
      forceExit: () => {
        log.close();
        killSelf();
      },
    },
  );
  if (config.shutdownGraceMs >= config.shutdownDeadlineMs) log.warn('shutdownGraceMs is not below shutdownDeadlineMs: the deadline cuts off the grace');
  dispatcher.add(
    daemonMethods({
      version: MEMD_VERSION,
      startedAt,
      socketActivated: activatedFd !== undefined,
      paths: { socket: paths.socketPath, stateDir: paths.stateDir, database: paths.dbPath, log: log.file, config: paths.configPath, projectsDir: paths.projectsDir },
      database: store.status,
      rpcStats: () => rpc.stats(),
      ingest: () => ingestor.status(),
      compaction: () => compaction.status(),
      extraction: () => extraction.status(),
      archive: () => archive.status(),
      search: () => search.status(),
      loop: () => loopDelay.status(),
      features: FEATURES,
      methodNames: () => dispatcher.methods,
      requestShutdown: (reason) => void shutdown(reason),
      shutdownDeadlineMs: config.shutdownDeadlineMs,
      clock,
    }),
  );

  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGHUP', () => log.info('SIGHUP ignored; restart memd to reload its configuration'));
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception; shutting down', { error });
    void shutdown('uncaught exception', EXIT_FAILURE);
  });
  process.on('unhandledRejection', (reason) => log.error('unhandled promise rejection', { error: reason }));

  // From here on: the start-up itself (loading modules, opening the store) holds no client yet.
  const loopDelay = watchLoopDelay();
  const target: ListenTarget = activatedFd !== undefined ? { kind: 'fd', fd: activatedFd } : { kind: 'path', path: paths.socketPath };
  try {
    await rpc.listen(target);
  } catch (error) {
    log.error('cannot listen', { error });
    await shutdown(`cannot listen on ${paths.socketPath}: ${(error as Error).message}`, EXIT_FAILURE);
    return;
  }
  if (activatedFd === undefined) {
    socketFile = ownSocket(paths.socketPath);
    socketFile.watch(config.socketCheckMs, (why) => void shutdown(`${why}; no client can reach this daemon`));
  }
  watcher.start();
  extraction.start();
  log.info('ready', { pid: process.pid, version: MEMD_VERSION, socket: paths.socketPath, socketActivated: activatedFd !== undefined, stateDir: paths.stateDir });
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
