/**
 * The Neovim plugin's tests against a real memd: a sandbox whose editor directory has a session
 * (a recorded transcript with its cwd rewritten to a sandbox dir, next to more recent sessions of
 * other directories), and ways to look at the editor: the plugin's connection, buffers, the line.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, SessionSummary } from '../../client/index.js';
import { factsFromSummary } from '../../client/memctl/quick/statusline.js';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { formatStatusLine } from '../../shared/statusline/format.js';
import { manifest } from './fixtures.js';
import { copyFixtureProjects, FIXTURES } from './ingest.js';
import { bufferLines, loadPlugin, NVIM_PATH, NVIM_SKIP_REASON, type Nvim, notes, startNvim } from './nvim.js';
import { eventually, type Sandbox } from './sandbox.js';

/** The session of the editor's directory: it has compactions, so every segment of the line shows. */
export const SCENARIO = 'compactions';
/** More recent sessions of other directories: the line must not take them. */
export const OTHER_SCENARIOS = ['interactive', 'checkpoints'];
/** vim.log.levels. */
export const LEVEL = { INFO: 2, WARN: 3, ERROR: 4 };
/** An editor that answers within this while a request hangs was not blocked by it. */
export const RESPONSIVE_MS = 500;
/** Waits for the plugin: reconnects are at most this far apart in the restart tests. */
export const FAST_BACKOFF = { backoff_initial_ms: 100, backoff_max_ms: 1000 };

export interface Project {
  cwd: string;
  sessionId: string;
  model: string;
  transcript: string;
}

export function prepareProjects(sandbox: Sandbox): Project {
  const recorded = manifest(SCENARIO);
  const cwd = join(sandbox.root, 'work', 'payments-api');
  mkdirSync(cwd, { recursive: true });
  const dir = join(sandbox.projectsDir, sanitizeProjectDirName(cwd));
  mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${recorded.sessionId}.jsonl`);
  writeFileSync(
    transcript,
    readFileSync(join(FIXTURES, SCENARIO, recorded.transcript), 'utf8').replaceAll(recorded.cwd, cwd),
  );
  copyFixtureProjects(sandbox.projectsDir, OTHER_SCENARIOS);
  return { cwd, sessionId: recorded.sessionId, model: recorded.model, transcript };
}

export async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return (
    ingest.progress.state === 'live' &&
    ingest.progress.filesPending === 0 &&
    ingest.stats.sessions === 1 + OTHER_SCENARIOS.length
  );
}

/** An assistant response whose usage puts the session's context at `tokens`. */
export function appendResponse(project: Project, uuid: string, tokens: number): void {
  const usage = {
    input_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: tokens - 110,
    output_tokens: 100,
  };
  const line = {
    parentUuid: null,
    isSidechain: false,
    type: 'assistant',
    uuid,
    timestamp: new Date().toISOString(),
    sessionId: project.sessionId,
    requestId: `req_${uuid}`,
    message: {
      id: `msg_${uuid}`,
      role: 'assistant',
      model: project.model,
      content: [{ type: 'text', text: 'done' }],
      usage,
    },
  };
  appendFileSync(project.transcript, `${JSON.stringify(line)}\n`);
}

/** The line memctl statusline prints for the session (no colour), at each of the given clocks. */
export function expectedLines(session: SessionSummary, columns: number, ...clocks: number[]): string[] {
  const facts = factsFromSummary(session, null);
  if (facts === null) throw new Error('sessions.get gave no summary');
  return clocks.map((now) => formatStatusLine(facts, { color: false, columns, now }));
}

export function connectionState(nvim: Nvim): Promise<{ state: string; socket: string; last_error?: string }> {
  return nvim.lua(
    `local s = require('memd').status() return { state = s.state, socket = s.socket, last_error = s.last_error }`,
  );
}

/** Neovim in `cwd`, the plugin loaded as a user's config would, and connected. */
export async function editor(
  sandbox: Sandbox,
  cwd: string,
  setup: Record<string, number | string | boolean> = {},
): Promise<Nvim> {
  const nvim = startNvim({ cwd, env: sandbox.env });
  await loadPlugin(nvim, setup);
  await eventually(async () => (await connectionState(nvim)).state === 'ready', 'the plugin to connect');
  return nvim;
}

/** The buffer's lines once `ready` holds; a timeout names what was seen and every notification. */
export async function lines(nvim: Nvim, name: string, ready: (lines: string[]) => boolean): Promise<string[]> {
  let seen: string[] | null = null;
  try {
    await eventually(async () => {
      seen = await bufferLines(nvim, name);
      return seen !== null && ready(seen);
    }, `the buffer ${name}`);
  } catch (error) {
    throw new Error(
      `${String(error)}; last seen ${JSON.stringify(seen)}; notifications ${JSON.stringify(await notes(nvim))}`,
    );
  }
  return seen ?? [];
}

export function currentBuffer(
  nvim: Nvim,
): Promise<{ name: string; filetype: string; buftype: string; modifiable: boolean; windows: number; lines: string[] }> {
  return nvim.lua(`
    return { name = vim.api.nvim_buf_get_name(0), filetype = vim.bo.filetype, buftype = vim.bo.buftype, modifiable = vim.bo.modifiable,
      windows = #vim.api.nvim_tabpage_list_wins(0), lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) }
  `);
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A describe title that says why it is skipped when it is. */
export const title = (what: string) => (NVIM_PATH ? what : `${what} (${NVIM_SKIP_REASON})`);
