#!/usr/bin/env node
/**
 * memd: the daemon, in the foreground. This file is the one place that wires the parts together.
 */
import { homedir } from 'node:os';
import { describeConfigKeys, type ResolvedConfig } from '../shared/config.js';
import { checkSocketPath, resolvePaths, type MemdPaths } from '../shared/paths.js';
import { priceFor } from '../shared/transcript/models.js';
import { MEMD_VERSION } from '../shared/version.js';
import { createBus } from './bus/bus.js';
import { eventMethods } from './rpc/methods/events.js';
import { loadConfig } from './config/load.js';
import { createLayers } from './compaction/layers.js';
import { compactionMethods } from './rpc/methods/compaction.js';
import { createCompactionService } from './compaction/service.js';
import { readToolResult } from './compaction/tool-results.js';
import { createIngestor, createIngestParser } from './ingest/ingestor.js';
import { createOfflineCompactionSummarizer } from './compaction/offline-summary.js';
import { modelAccess } from './llm/backends.js';
import { createAnthropicCompactionSummarizer } from './compaction/anthropic-summary.js';
import { createAnthropicMemorySummarizer } from './extraction/anthropic-extractor.js';
import { hasAllSections } from './extraction/template.js';
import { asLastExtraction, createJobStore } from './extraction/jobs.js';
import { createMemoryLocks } from './extraction/lock.js';
import { memoryMethods } from './rpc/methods/extraction.js';
import { createExtractor } from './extraction/extract.js';
import { createExtractionService } from './extraction/service.js';
import type { LineParser } from './ingest/parser.js';
import { listSessions } from './transcripts/queries.js';
import { createWatcher, scanTranscripts } from './ingest/watcher.js';
import { ensurePrivateDir, UnsafeDirError } from './lifecycle/dirs.js';
import { acquireInstanceLock, LockHeldError, type InstanceLock } from './lifecycle/instance-lock.js';
import { daemonMethods } from './rpc/methods/daemon.js';
import { createShutdown, inParallel, killSelf } from './lifecycle/shutdown.js';
import { takeActivatedSocket } from './lifecycle/socket-activation.js';
import { ownSocket, removeStaleSocket, SocketPathError, type OwnSocket } from './lifecycle/socket-file.js';
import { createLogger, rotatingFileSink, stderrSink, type Logger } from './log/logger.js';
import { handoffMethods } from './rpc/methods/handoff.js';
import { createHandoffService } from './handoff/service.js';
import { historyMethods } from './rpc/methods/history.js';
import { hookMethods } from './rpc/methods/hooks.js';
import { createHookRecords } from './handoff/hook-records.js';
import { createHookService } from './handoff/hooks.js';
import { createMemdirStore } from './memory/memdir/store.js';
import { memdirMethods } from './rpc/methods/memdir.js';
import { createRewindService } from './memory/rewind/service.js';
import { rewindMethods } from './rpc/methods/rewind.js';
import { createDispatcher } from './rpc/dispatch.js';
import { createRpcServer, type ListenTarget } from './rpc/server.js';
import { checkDatabase } from './store/check.js';
import { openStore, type Store } from './store/db.js';
import { createDbHealth } from './store/health.js';
import { cleanLeftovers } from './store/leftovers.js';
import { removeUnfinishedUndoPoints } from './memory/rewind/undo-store.js';
import { createEntryCache } from './transcripts/entry-cache.js';
import { sessionMethods } from './rpc/methods/sessions.js';
import { createSessionService } from './sessions/service.js';
import { createSessionIdResolver } from './sessions/short-id.js';
import { summarizeSession } from './sessions/summary.js';

const USAGE = `usage: memd [--foreground] [--print-config] [--check-db] [--version] [--help]

Runs the memd daemon in the foreground (there is one per user).
  --foreground     log to stderr instead of memd.log (as under systemd)
  --print-config   print the resolved paths and configuration, then exit
  --check-db       check the state database's integrity (read-only), print JSON, then exit
  --version        print the version, then exit

Environment: MEMD_SOCKET, MEMD_STATE_DIR, MEMD_CONFIG, MEMD_PROJECTS_DIR, CLAUDE_CONFIG_DIR,
XDG_RUNTIME_DIR, XDG_STATE_HOME, XDG_CONFIG_HOME, and the keys in docs/configuration.md.`;

/** Exit codes: 1 a runtime failure (another daemon, a bad dir), 2 bad usage or configuration. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** Feature flags reported by daemon.version beside the method names. */
const FEATURES = ['events', 'cancel'] as const;

function fail(message: string, code = EXIT_FAILURE): never {
  process.stderr.write(`memd: ${message}\n`);
  process.exit(code);
}

function printConfig(paths: MemdPaths, resolved: ResolvedConfig): void {
  const keys = describeConfigKeys().map(({ key, env }) => ({
    key,
    env,
    value: resolved.config[key],
    source: resolved.sources[key],
  }));
  process.stdout.write(`${JSON.stringify({ version: MEMD_VERSION, paths, config: keys, problems: resolved.problems }, null, 2)}\n`);
}

function openLogger(paths: MemdPaths, resolved: ResolvedConfig, foreground: boolean): Logger {
  const { config } = resolved;
  const underSystemd = process.env.JOURNAL_STREAM !== undefined && process.env.JOURNAL_STREAM !== '';
  if (underSystemd || foreground) return createLogger(stderrSink(underSystemd), config.logLevel);
  return createLogger(rotatingFileSink(paths.logPath, config.logMaxBytes, config.logFiles), config.logLevel);
}

async function main(argv: string[]): Promise<void> {
  const known = new Set(['--foreground', '--print-config', '--check-db', '--version', '--help', '-h']);
  const unknown = argv.filter((arg) => !known.has(arg));
  if (unknown.length > 0) fail(`unknown argument ${unknown[0]}\n${USAGE}`, EXIT_USAGE);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`memd ${MEMD_VERSION}\n`);
    return;
  }

  const paths = resolvePaths(process.env, homedir());
  const resolved = loadConfig(paths.configPath, process.env);
  if (argv.includes('--print-config')) {
    printConfig(paths, resolved);
    process.exitCode = resolved.problems.length > 0 ? EXIT_USAGE : 0;
    return;
  }
  if (argv.includes('--check-db')) {
    const check = checkDatabase(paths.dbPath);
    process.stdout.write(`${JSON.stringify(check)}\n`);
    process.exitCode = check.ok ? 0 : EXIT_FAILURE;
    return;
  }
  if (resolved.problems.length > 0) fail(`bad configuration:\n  ${resolved.problems.join('\n  ')}`, EXIT_USAGE);

  // Everything memd creates is private to the user.
  process.umask(0o077);
  const activated = takeActivatedSocket(process.env);
  if (!activated) {
    const socketProblem = checkSocketPath(paths.socketPath);
    if (socketProblem) fail(socketProblem, EXIT_USAGE);
  }
  try {
    ensurePrivateDir(paths.stateDir, 'state');
    ensurePrivateDir(paths.runtimeDir, 'socket');
  } catch (error) {
    if (error instanceof UnsafeDirError) fail(error.message);
    throw error;
  }

  const log = openLogger(paths, resolved, argv.includes('--foreground'));
  let lock: InstanceLock;
  try {
    lock = acquireInstanceLock(paths.lockPath);
  } catch (error) {
    if (error instanceof LockHeldError) fail(`already running as pid ${error.pid} (lock ${error.lockPath}); stop it with: memctl stop`);
    throw error;
  }

  // Made now, so that the parse worker boots (about 80 ms) while the store opens and the socket binds.
  const parser = createIngestParser({});
  let store: Store | undefined;
  try {
    if (!activated && removeStaleSocket(paths.socketPath)) log.info('removed a stale socket', { socket: paths.socketPath });
    cleanLeftovers(paths.stateDir, paths.dbPath, log, () => removeUnfinishedUndoPoints(paths.stateDir));
    store = openStore(paths.dbPath, log);
  } catch (error) {
    await parser.close();
    lock.release();
    if (error instanceof SocketPathError) fail(error.message);
    fail(`cannot open the state database ${paths.dbPath}: ${(error as Error).message}`);
  }
  await serve({ paths, resolved, log, lock, store, parser, activatedFd: activated?.fd });
}

interface Parts {
  paths: MemdPaths;
  resolved: ResolvedConfig;
  log: Logger;
  lock: InstanceLock;
  store: Store;
  parser: LineParser;
  activatedFd: number | undefined;
}

async function serve({ paths, resolved, log, lock, store, parser, activatedFd }: Parts): Promise<void> {
  const { config } = resolved;
  const startedAt = new Date();
  const bus = createBus((error, topic) => log.error('event listener failed', { topic, error }));
  const clock = () => Date.now();
  const ingestor = createIngestor({
    db: store.db,
    bus,
    log,
    clock,
    projectsDir: paths.projectsDir,
    onSessionsChanged: (sessionIds) => {
      sessions.onSessionsChanged(sessionIds);
      // The backfill reads history, which is not summarized on the way: the sessions it changed
      // are extracted once it is done, at the lowest priority.
      const live = ingestor.progress().state === 'live';
      for (const sessionId of sessionIds) {
        if (live) extraction.onSessionChanged(sessionId);
        else extraction.onSessionBackfilled(sessionId);
      }
      for (const sessionId of sessionIds) hooks.onSessionChanged(sessionId);
    },
    onBackfillDone: () => extraction.onBackfillDone(),
    parser,
  });
  // Claude Code's own overrides (CLAUDE_CODE_AUTO_COMPACT_WINDOW, DISABLE_AUTO_COMPACT, ...) as the daemon sees them.
  const thresholdEnv = { ...process.env };
  const entryCache = createEntryCache();
  const jobs = createJobStore({ db: store.db, clock });
  const lastExtraction = (sessionId: string) => {
    const record = jobs.lastExtraction(sessionId);
    return record === null ? null : asLastExtraction(record);
  };
  const sessions = createSessionService({
    sessionIndex: () => listSessions(store.db),
    summarize: (sessionId) => summarizeSession(store.db, entryCache, sessionId, thresholdEnv, lastExtraction(sessionId)),
    bus,
    log,
    // Crossings are computed once ingest is live, clients or not: auto-compaction runs on them.
    // Not during the backfill: history is not compacted, and summarizing every session on the way
    // would fill the entry cache (RSS) and slow the backfill.
    wanted: (topic) => rpc.hasSubscribers(topic) || (topic === 'session.thresholdCrossed' && ingestor.progress().state === 'live'),
    clock,
    // A live session entering the auto-compact zone, or first seen live inside it, gets a compaction.
    onState: (sessionId, state, previous) => {
      if (state !== previous) compaction.onThresholdCrossed(sessionId, state);
    },
  });
  const locks = createMemoryLocks({ log });
  const access = modelAccess(config, process.env, log);
  const anthropicMemory = access && createAnthropicMemorySummarizer({ ...access, model: config.model, validate: hasAllSections });
  const memdir = createMemdirStore({ projectsDir: paths.projectsDir, clock });
  const hooks = createHookService({ db: store.db, cache: entryCache, records: createHookRecords(store.db), memdir, log, clock });
  const extraction = createExtractionService({
    db: store.db,
    cache: entryCache,
    projectsDir: paths.projectsDir,
    claudeRoot: paths.claudeRoot,
    bus,
    log,
    clock,
    jobs,
    locks,
    price: (model) => priceFor(model),
    extractor: createExtractor(anthropicMemory),
    onExtracted: (sessionId) => sessions.onSessionsChanged([sessionId]),
    backfillExtractions: config.backfillExtractions,
  });
  const modelSummarizer = access && createAnthropicCompactionSummarizer({ ...access, model: config.model });
  const offlineSummarizer = createOfflineCompactionSummarizer();
  const compaction = createCompactionService({
    db: store.db,
    cache: entryCache,
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
  const toolResult = async (sessionId: string, toolUseId: string, range: { offset?: number; length?: number }) => {
    const conversation = compaction.conversation(sessionId);
    return readToolResult(paths.projectsDir, conversation.file.project, sessionId, toolUseId, conversation, range);
  };
  const watcher = createWatcher({ root: paths.projectsDir, ingestor, db: store.db, log, clock, sweepMs: config.ingestSweepMs });
  const dbHealth = createDbHealth({
    store,
    log,
    intervalMs: config.dbCheckMs,
    // File ids now name other files: nothing cached survives, and every transcript is read again.
    onRebuilt: () => {
      entryCache.clear();
      sessions.forgetAll();
      void scanTranscripts(paths.projectsDir).then((files) => files.forEach((file) => ingestor.touch(file.path)));
    },
  });
  let methodNames: readonly string[] = [];
  const handlers = [
    ...daemonMethods({
      version: MEMD_VERSION,
      startedAt,
      socketActivated: activatedFd !== undefined,
      paths: {
        socket: paths.socketPath,
        stateDir: paths.stateDir,
        database: paths.dbPath,
        log: log.file,
        config: paths.configPath,
        projectsDir: paths.projectsDir,
      },
      database: store.status,
      rpcStats: () => rpc.stats(),
      ingest: () => ingestor.status(),
      compaction: () => compaction.status(),
      extraction: () => extraction.status(),
      features: FEATURES,
      methodNames: () => methodNames,
      requestShutdown: (reason) => void shutdown(reason),
      shutdownDeadlineMs: config.shutdownDeadlineMs,
      clock,
    }),
    ...eventMethods(),
    ...sessionMethods(sessions, thresholdEnv),
    ...compactionMethods(compaction, toolResult),
    ...memoryMethods(extraction),
    ...memdirMethods(memdir),
    ...hookMethods(hooks),
    ...handoffMethods(
      createHandoffService({ db: store.db, cache: entryCache, projectsDir: paths.projectsDir, claudeRoot: paths.claudeRoot, log, clock, anthropic: access && { ...access, model: config.handoffModel }, git: { timeoutMs: config.gitTimeoutMs } }),
    ),
    ...historyMethods({ claudeRoot: paths.claudeRoot }),
    ...rewindMethods(createRewindService({ db: store.db, claudeRoot: paths.claudeRoot, stateDir: paths.stateDir, clock })),
  ];
  const dispatcher = createDispatcher(handlers, log, createSessionIdResolver(store.db));
  methodNames = dispatcher.methods;
  const rpc = createRpcServer({ dispatcher, bus, log, maxConnections: config.maxConnections, limits: { idleMs: config.idleTimeoutMs, frameMs: config.frameTimeoutMs } });
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
      { name: 'stop session updates', run: () => sessions.close() },
      { name: 'stop compactions', run: () => compaction.close() },
      // Running summaries are aborted; their jobs stay queued and run after the next start.
      { name: 'stop extraction', run: () => extraction.close(), pending: () => extraction.status().running.map((id) => `extraction job of session ${id}`) },
      // Always, from here on: whatever is stuck, the next daemon must find the lock free.
      { name: 'close database', run: () => (dbHealth.stop(), store.close()), always: true },
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

  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGHUP', () => log.info('SIGHUP ignored; restart memd to reload its configuration'));
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception; shutting down', { error });
    void shutdown('uncaught exception', EXIT_FAILURE);
  });
  process.on('unhandledRejection', (reason) => log.error('unhandled promise rejection', { error: reason }));

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
  log.info('ready', {
    pid: process.pid,
    version: MEMD_VERSION,
    socket: paths.socketPath,
    socketActivated: activatedFd !== undefined,
    stateDir: paths.stateDir,
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
});
