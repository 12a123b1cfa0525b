/**
 * The daemon's shutdown (shutdown.ts runs it): its steps over the parts record, in the order they
 * run, and what asks for it (signals, a fatal error). A step's name is what the log says when the
 * deadline passes with it still running, or not run.
 */
import type { MemdConfig } from '../../shared/config.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import { EXIT_FAILURE } from './bootstrap.js';
import { createShutdown, inParallel, killSelf, type Shutdown, type ShutdownStep } from './shutdown.js';

type Stop = () => void | Promise<void>;

/** What the steps stop: main.ts's parts record, with the server and the socket. */
export interface StoppingParts {
  config: Pick<MemdConfig, 'shutdownGraceMs' | 'shutdownDeadlineMs'>;
  log: Logger;
  bus: Pick<Bus, 'publish'>;
  rpc: {
    server: {
      stopAccepting(closeListener?: boolean): Promise<void>;
      drain(timeoutMs: number): Promise<boolean>;
      running(): string[];
      closeConnections(): void;
    };
  };
  socket: { isOwn(): boolean; remove(): void };
  ingest: { watcher: { stop: Stop }; ingestor: { stop: Stop; progress(): { filesPending: number } } };
  /** Each stopped by its own step, in the list's order, once ingest has stopped. */
  followers: readonly { readonly stopStep: string; stop: Stop }[];
  sessions: { close: Stop };
  exports: { close: Stop };
  aggregates: { close: Stop };
  compaction: { close: Stop };
  extraction: { close: Stop; status(): { running: readonly string[] } };
  dbHealth: { stop(): void };
  store: { close(): void };
  lock: { release(): void };
}

export function shutdownSteps(parts: StoppingParts, reason: string): ShutdownStep[] {
  const { rpc, socket, ingest, extraction, log } = parts;
  return [
    { name: 'announce', run: () => parts.bus.publish('daemon.stopping', { reason }) },
    { name: 'stop accepting', run: () => rpc.server.stopAccepting(socket.isOwn()) },
    {
      name: 'finish requests',
      run: async () => void (await rpc.server.drain(parts.config.shutdownGraceMs)),
      pending: () => rpc.server.running(),
    },
    // Always: a request still running past the deadline is cancelled (its git runs killed) too.
    { name: 'close connections', run: () => rpc.server.closeConnections(), always: true },
    // What was read is committed; the rest is read after the next start.
    {
      name: 'stop ingest',
      ...inParallel([
        { name: 'transcript watcher', run: () => ingest.watcher.stop() },
        {
          name: 'ingest lanes and parse worker',
          run: () => ingest.ingestor.stop(),
          detail: () => `${ingest.ingestor.progress().filesPending} transcripts being read`,
        },
      ]),
    },
    ...parts.followers.map((follower) => ({ name: follower.stopStep, run: () => follower.stop() })),
    { name: 'stop session updates', run: () => parts.sessions.close() },
    { name: 'drop kept export reports', run: () => parts.exports.close() },
    { name: 'stop background context counts', run: () => parts.aggregates.close() },
    { name: 'stop compactions', run: () => parts.compaction.close() },
    // Running summaries are aborted; their jobs stay queued and run after the next start.
    {
      name: 'stop extraction',
      run: () => extraction.close(),
      pending: () => extraction.status().running.map((id) => `extraction job of session ${id}`),
    },
    // Always, from here on: whatever is stuck, the next daemon must find the lock free.
    {
      name: 'close database',
      run: () => {
        parts.dbHealth.stop();
        parts.store.close();
      },
      always: true,
    },
    { name: 'remove socket', run: () => socket.remove(), always: true },
    { name: 'release lock', run: () => parts.lock.release(), always: true },
    { name: 'log stopped', run: () => log.info('stopped'), always: true },
  ];
}

/** The shutdown, run at most once; past its deadline memd kills itself (shutdown.ts says why not exit). */
export function createDaemonShutdown(parts: StoppingParts): Shutdown {
  const { config, log } = parts;
  const shutdown = createShutdown(
    (reason) => shutdownSteps(parts, reason),
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
  if (config.shutdownGraceMs >= config.shutdownDeadlineMs)
    log.warn('shutdownGraceMs is not below shutdownDeadlineMs: the deadline cuts off the grace');
  return shutdown;
}

/** SIGTERM and SIGINT shut down, as does an uncaught exception; SIGHUP is ignored (the configuration is read at start only). */
export function shutDownOnSignals(shutdown: Shutdown, log: Logger): void {
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGHUP', () => log.info('SIGHUP ignored; restart memd to reload its configuration'));
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception; shutting down', { error });
    void shutdown('uncaught exception', EXIT_FAILURE);
  });
  process.on('unhandledRejection', (reason) => log.error('unhandled promise rejection', { error: reason }));
}
