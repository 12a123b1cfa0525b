/**
 * One graceful shutdown, run at most once whatever asks for it (signal, RPC, fatal error), and
 * bounded by a deadline: a step that never finishes (a lane on a hung mount, a job that ignores
 * its abort) must not leave the daemon running with its lock held while `memctl stop` waits.
 */
import { DEFAULT_SHUTDOWN_DEADLINE_MS } from '../../shared/config.js';
import type { Logger } from '../log/logger.js';

export interface ShutdownStep {
  name: string;
  run(): void | Promise<void>;
  /** What this step still waits for (lanes, jobs, requests), named in the log when the deadline passes. */
  pending?(): readonly string[];
  /**
   * Run on the deadline path too, if it has not run yet: what must happen whatever is stuck
   * (cancel requests, remove the socket, release the lock). Must be synchronous there.
   */
  always?: boolean;
}

export interface Shutdown {
  (reason: string, exitCode?: number): Promise<void>;
  readonly started: boolean;
}

export interface ShutdownOptions {
  deadlineMs?: number;
  /**
   * Ends the process when the deadline passed. Not `exit`: a normal exit joins libuv's thread
   * pool, and a thread stuck in the kernel (an open() of a FIFO, a hung NFS read) is exactly
   * what may have held the shutdown up, so the exit would hang as well.
   */
  forceExit?: () => void;
}

/** Exits at once whatever the threads are doing; the log and the lock are dealt with before. */
export function killSelf(): void {
  process.kill(process.pid, 'SIGKILL');
}

/** Runs every step in order; a failing step is logged and the rest still run. */
export function createShutdown(
  steps: (reason: string) => readonly ShutdownStep[],
  log: Logger,
  exit: (code: number) => void,
  options: ShutdownOptions = {},
): Shutdown {
  const deadlineMs = options.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS;
  const forceExit = options.forceExit ?? killSelf;
  let running: Promise<void> | undefined;

  const shutdown = (reason: string, exitCode = 0): Promise<void> => {
    if (running !== undefined) return running;
    const planned = steps(reason);
    const ran = new Set<ShutdownStep>();
    let current: ShutdownStep | null = null;
    let overdue = false;

    const onDeadline = () => {
      overdue = true;
      const notRun = planned.filter((step) => !ran.has(step) && step !== current);
      log.error('shutdown did not finish within its deadline; exiting anyway', {
        reason,
        deadlineMs,
        stuck: current?.name ?? null,
        waitingFor: safePending(current),
        notRun: notRun.map((step) => step.name),
      });
      for (const step of notRun) {
        if (!step.always) continue;
        ran.add(step);
        try {
          const result = step.run();
          // Nothing is awaited past the deadline; a late failure is still logged.
          if (result instanceof Promise)
            result.catch((error: unknown) => log.error('shutdown step failed', { step: step.name, error }));
        } catch (error) {
          log.error('shutdown step failed', { step: step.name, error });
        }
      }
      forceExit();
    };
    // Not unref'd: a step awaiting a promise that nothing will settle must not let the process
    // end quietly with code 0 and its lock left behind.
    const timer = setTimeout(onDeadline, deadlineMs);

    running = (async () => {
      log.info('shutting down', { reason });
      let code = exitCode;
      for (const step of planned) {
        if (overdue) return;
        current = step;
        ran.add(step);
        try {
          await step.run();
        } catch (error) {
          code = code === 0 ? 1 : code;
          log.error('shutdown step failed', { step: step.name, error });
        }
      }
      current = null;
      if (overdue) return;
      clearTimeout(timer);
      exit(code);
    })();
    return running;
  };
  Object.defineProperty(shutdown, 'started', { get: () => running !== undefined });
  return shutdown as Shutdown;
}

export interface ShutdownPart {
  name: string;
  run(): void | Promise<void>;
  /** Detail for the log while this part is unsettled: e.g. the files a lane is reading. */
  detail?(): string;
}

/** Parts awaited together as one step; `pending` names those that have not settled yet. */
export function inParallel(parts: readonly ShutdownPart[]): Pick<ShutdownStep, 'run' | 'pending'> {
  const unsettled = new Set<ShutdownPart>();
  return {
    run: async () => {
      for (const part of parts) unsettled.add(part);
      const results = await Promise.allSettled(
        parts.map(async (part) => {
          try {
            await part.run();
          } finally {
            unsettled.delete(part);
          }
        }),
      );
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
    pending: () =>
      [...unsettled].map((part) => (part.detail === undefined ? part.name : `${part.name}: ${part.detail()}`)),
  };
}

function safePending(step: ShutdownStep | null): readonly string[] {
  try {
    return step?.pending?.() ?? [];
  } catch (error) {
    return [`(could not tell: ${(error as Error).message})`];
  }
}
