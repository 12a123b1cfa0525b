/**
 * A terminal program driven through tmux, for tests of interactive programs (Claude Code's TUI):
 * its own tmux server on a socket in the test's directory (never the user's server), a detached
 * session of a fixed size, keys sent with `send-keys` and the screen read with `capture-pane -p`.
 * Every tmux call has a deadline; `kill` ends the server and the program with it.
 */
import { execFile } from 'node:child_process';
import { eventually } from './poll.js';

/** A tmux command answers in milliseconds; this only bounds a wedged server. */
const TMUX_CALL_DEADLINE_MS = 5_000;
/** How long a program may take to exit once its terminal is gone, before it is killed. */
const PROGRAM_EXIT_DEADLINE_MS = 10_000;

export interface TmuxOptions {
  /** The server's socket path (`tmux -S`): keep it in the test's temporary directory. */
  socket: string;
  cwd: string;
  /** The environment of the server, and so of the program (a new server copies its client's). */
  env: NodeJS.ProcessEnv;
  /** The program and its arguments, run without a shell. */
  command: string[];
  width: number;
  height: number;
}

export interface TmuxSession {
  /** Sends keys as tmux names them (`Enter`, `C-c`); `literal` sends text as typed. */
  sendKeys(keys: string[], options?: { literal?: boolean }): Promise<void>;
  /** The visible screen, one line per row, trailing spaces trimmed. */
  capture(): Promise<string>;
  /** Polls the screen until `test` holds; the last screen is in the error otherwise. */
  waitFor(test: (screen: string) => boolean, what: string, deadlineMs?: number): Promise<string>;
  /** Whether the program has exited (its last screen stays readable). */
  exited(): Promise<boolean>;
  /** Ends the server and waits for the program to be gone (killed if it lingers). */
  kill(): Promise<void>;
}

function tmux(options: TmuxOptions, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'tmux',
      ['-S', options.socket, '-f', '/dev/null', ...args],
      { env: options.env, cwd: options.cwd, timeout: TMUX_CALL_DEADLINE_MS },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args[0]} failed: ${error.message} ${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The program gets SIGHUP when the server goes, and may still write its files (and run its exit
 * hooks) after that: the test's directory is removed only once it is gone, killed if it lingers.
 */
async function waitGone(pid: number): Promise<void> {
  try {
    await eventually(() => !isAlive(pid), `pid ${pid} to exit after SIGHUP`, PROGRAM_EXIT_DEADLINE_MS);
  } catch {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await eventually(() => !isAlive(pid), `pid ${pid} to exit after SIGKILL`, TMUX_CALL_DEADLINE_MS);
  }
}

export async function startTmux(options: TmuxOptions): Promise<TmuxSession> {
  const size = ['-x', String(options.width), '-y', String(options.height)];
  // The options go in the same call, long before the program (a Claude Code takes a second to start) looks.
  await tmux(options, [
    ...['new-session', '-d', '-s', 'test', ...size, '-c', options.cwd, '--', ...options.command, ';'],
    // The window keeps the size asked for, whatever client attaches (none does).
    ...['set-option', '-g', 'window-size', 'manual', ';'],
    // As a user's terminal has it; without it Claude Code puts a notice about it beside its status line.
    ...['set-option', '-g', 'focus-events', 'on', ';'],
    // A program that exits leaves its last screen to read, not a closed session.
    ...['set-option', '-g', 'remain-on-exit', 'on'],
  ]);

  const capture = async () => (await tmux(options, ['capture-pane', '-p', '-t', 'test'])).replace(/[ \t]+$/gm, '');
  let last = '';
  return {
    sendKeys: async (keys, sendOptions = {}) => {
      await tmux(options, ['send-keys', '-t', 'test', ...(sendOptions.literal === true ? ['-l'] : []), ...keys]);
    },
    capture,
    waitFor: async (test, what, deadlineMs = 20_000) => {
      try {
        await eventually(async () => test((last = await capture())), what, deadlineMs);
      } catch (error) {
        throw new Error(`${(error as Error).message}; the screen was:\n${last}`);
      }
      return last;
    },
    exited: async () => (await tmux(options, ['display-message', '-p', '-t', 'test', '#{pane_dead}'])).trim() === '1',
    kill: async () => {
      const pid = Number.parseInt(
        await tmux(options, ['display-message', '-p', '-t', 'test', '#{pane_pid}']).catch(() => ''),
        10,
      );
      await tmux(options, ['kill-server']).catch(() => {});
      if (pid > 0) await waitGone(pid);
    },
  };
}
