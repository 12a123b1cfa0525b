/** One graceful shutdown, run at most once whatever asks for it (signal, RPC, fatal error). */
import type { Logger } from '../log/logger.js';

export interface ShutdownStep {
  name: string;
  run(): void | Promise<void>;
}

export interface Shutdown {
  (reason: string, exitCode?: number): Promise<void>;
  readonly started: boolean;
}

/** Runs every step in order; a failing step is logged and the rest still run. */
export function createShutdown(steps: (reason: string) => readonly ShutdownStep[], log: Logger, exit: (code: number) => void): Shutdown {
  let running: Promise<void> | undefined;
  const shutdown = (reason: string, exitCode = 0): Promise<void> => {
    if (running) return running;
    running = (async () => {
      log.info('shutting down', { reason });
      let code = exitCode;
      for (const step of steps(reason)) {
        try {
          await step.run();
        } catch (error) {
          code = code === 0 ? 1 : code;
          log.error('shutdown step failed', { step: step.name, error });
        }
      }
      exit(code);
    })();
    return running;
  };
  Object.defineProperty(shutdown, 'started', { get: () => running !== undefined });
  return shutdown as Shutdown;
}
