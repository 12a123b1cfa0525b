/**
 * A real headless Neovim for the plugin's tests: `nvim --headless --embed -u NONE` with
 * client/nvim on the runtimepath, driven over its msgpack-RPC channel on stdin/stdout. Every
 * Neovim a test starts is killed after it, and its stderr is printed when the test fails.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, onTestFailed } from 'vitest';
import { decode, encode, Incomplete, type Packable, type Unpacked } from './nvim-msgpack.js';
import { ROOT } from './sandbox.js';

export const PLUGIN_DIR = join(ROOT, 'client/nvim');

/** The nvim on PATH, or undefined when there is none (the tests that need it are skipped). */
export const NVIM_PATH: string | undefined = (() => {
  const found = spawnSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
})();

/** Why the Neovim tests are skipped, for their titles. */
export const NVIM_SKIP_REASON = 'skipped: nvim is not on PATH (.ci/run installs Debian’s neovim)';

/** An answer slower than this means Neovim is stuck: nothing the tests ask of it takes long. */
const RPC_TIMEOUT_MS = 10_000;

const live = new Set<ChildProcess>();

afterEach(async () => {
  const exits = [...live].map(
    (child) =>
      new Promise<void>((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
      ),
  );
  for (const child of live) child.kill('SIGKILL');
  await Promise.all(exits);
  live.clear();
});

export interface Nvim {
  pid: number;
  /** Calls an API function (`nvim_exec_lua`, `nvim_command`, ...). */
  request(method: string, args: Packable[]): Promise<Unpacked>;
  /** Runs Lua with `...` bound to `args`, returning what it returns. */
  lua<T = Unpacked>(code: string, ...args: Packable[]): Promise<T>;
  command(command: string): Promise<void>;
  stderr(): string;
  /** Quits Neovim and waits for it to exit. */
  close(): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface NvimOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function startNvim(options: NvimOptions): Nvim {
  if (NVIM_PATH === undefined) throw new Error(NVIM_SKIP_REASON);
  const args = ['--headless', '--embed', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', `set rtp^=${PLUGIN_DIR}`];
  const child = spawn(NVIM_PATH, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => live.delete(child));
  try {
    onTestFailed(() => {
      process.stderr.write(`\n--- stderr of nvim (pid ${child.pid}) ---\n${stderr}\n---\n`);
    });
  } catch {
    // Outside a test: nothing to attach the output to.
  }

  let nextId = 0;
  const pending = new Map<number, { resolve: (value: Unpacked) => void; reject: (error: Error) => void }>();
  let buffer = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      let message: Unpacked;
      let next: number;
      try {
        [message, next] = decode(buffer, 0);
      } catch (error) {
        if (error instanceof Incomplete) return;
        throw error;
      }
      buffer = buffer.subarray(next);
      // [1, id, error, result]: a response; notifications ([2, ...]) are not asked for.
      if (!Array.isArray(message) || message[0] !== 1) continue;
      const waiter = pending.get(message[1] as number);
      pending.delete(message[1] as number);
      if (message[2] !== null) waiter?.reject(new Error(`nvim: ${JSON.stringify(message[2])}`));
      else waiter?.resolve(message[3] ?? null);
    }
  });
  void exited.then((code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`nvim exited (${code}):\n${stderr}`));
    pending.clear();
  });

  const request = (method: string, params: Packable[]): Promise<Unpacked> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`nvim did not answer ${method} within ${RPC_TIMEOUT_MS} ms`));
      }, RPC_TIMEOUT_MS);
      pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      child.stdin.write(encode([0, id, method, params]));
    });

  return {
    pid: child.pid ?? -1,
    request,
    lua: async <T>(code: string, ...params: Packable[]) => (await request('nvim_exec_lua', [code, params])) as T,
    command: async (command: string) => {
      await request('nvim_command', [command]);
    },
    stderr: () => stderr,
    close: async () => {
      // qa! ends the process before it can answer: the exit is the answer.
      request('nvim_command', ['qa!']).catch(() => undefined);
      return exited;
    },
    exited,
  };
}

/**
 * Loads the plugin as a user's config would: setup() first (as init.lua runs before plugin/),
 * then plugin/memd.lua; vim.notify is recorded in _G.memd_notes for the tests to read.
 */
export async function loadPlugin(nvim: Nvim, setup: Record<string, Packable> = {}): Promise<void> {
  await nvim.lua(
    `
    _G.memd_notes = {}
    vim.notify = function(message, level) table.insert(_G.memd_notes, { message = message, level = level }) end
    require('memd').setup(vim.json.decode(...))
    vim.cmd('runtime plugin/memd.lua')
    `,
    JSON.stringify(setup),
  );
}

/** The lines of the buffer named `name`, or null when there is none. */
export function bufferLines(nvim: Nvim, name: string): Promise<string[] | null> {
  return nvim.lua<string[] | null>(
    `
    local name = ...
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(buf) == name then return vim.api.nvim_buf_get_lines(buf, 0, -1, false) end
    end
    return nil
    `,
    name,
  );
}

export function notes(nvim: Nvim): Promise<{ message: string; level: number }[]> {
  return nvim.lua('return _G.memd_notes');
}

export function statusline(nvim: Nvim, width?: number): Promise<string> {
  return nvim.lua<string>(`return require('memd').statusline(...)`, width ?? null);
}
