/**
 * Starting memd on the user's request (memd: Start the Daemon, or memd.autostart): the configured
 * command, `memctl start` by default, run without a shell. The client library's own autostart is
 * never used here: it starts `process.execPath`, which in VS Code's extension host is the editor.
 */
import { execFile } from 'node:child_process';

/** `memctl start` waits up to 3 s for the daemon to answer; a cold start of node adds to that. */
export const START_TIMEOUT_MS = 15_000;
/** The lines of the command's output a message quotes. */
const QUOTED_LINES = 3;

export interface StartOutcome {
  ok: boolean;
  /** What to tell the user: the command's own words, or why it could not run. */
  message: string;
}

export type Starter = () => Promise<StartOutcome>;

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-QUOTED_LINES).join(' ');
}

export function runStartCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = START_TIMEOUT_MS,
): Promise<StartOutcome> {
  const [program, ...args] = argv;
  if (program === undefined || program === '')
    return Promise.resolve({
      ok: false,
      message: 'memd.startCommand is empty: set it to the command that starts memd (memctl start)',
    });
  const shown = argv.join(' ');
  return new Promise((resolve) => {
    execFile(program, args, { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error === null) {
        resolve({ ok: true, message: lastLines(stdout) || `${shown} succeeded` });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        resolve({
          ok: false,
          message: `${program} was not found (PATH=${env.PATH ?? ''}); set memd.startCommand to its full path`,
        });
        return;
      }
      if (error.killed) {
        resolve({ ok: false, message: `${shown} did not finish within ${timeoutMs} ms` });
        return;
      }
      const said = lastLines(`${stderr}\n${stdout}`);
      resolve({
        ok: false,
        message: `${shown} failed (exit ${String(error.code ?? error.signal)})${said === '' ? '' : `: ${said}`}`,
      });
    });
  });
}
