/** What every memctl command receives, and the exit codes of DESIGN.md §4. */
import { type Client, createClient } from '../index.js';
import type { Output } from './output.js';

export const EXIT_OK = 0;
/** The daemon answered with an error (or a check failed). */
export const EXIT_ERROR = 1;
/** No daemon answered, or the command line was wrong. */
export const EXIT_NO_DAEMON = 2;
export const EXIT_USAGE = 2;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CommandContext {
  args: string[];
  json: boolean;
  autostart: boolean;
  out: Output;
  env: NodeJS.ProcessEnv;
  client(options?: { autostart?: boolean; keepAlive?: boolean; timeoutMs?: number }): Client;
}

export { autostartDisabledBy } from './quick/session-start.js';

export type Command = (ctx: CommandContext) => Promise<number>;

export function makeClientFactory(env: NodeJS.ProcessEnv, autostart: boolean): CommandContext['client'] {
  return (options = {}) =>
    createClient({
      env,
      autostart: options.autostart ?? autostart,
      keepAlive: options.keepAlive ?? false,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
}
