#!/usr/bin/env node
/**
 * The command Claude Code runs for memd's hooks, status line and MCP server (what `memctl install-*`
 * registers), and package.json's `memctl`. It lives outside dist/ and loads nothing but node's
 * built-ins, so that a missing or half-built dist/ (a fresh clone, a failed build, the instant of
 * `npm run build`'s swap) cannot make it fail the way the README promises it never does: hooks
 * exit 0 with nothing on stderr, the status line prints a line, and the MCP server answers in
 * JSON-RPC. The real entry runs in this same process (no second node start on the hooks' budget).
 */
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'dist', 'client', 'memctl', 'main.js');
/**
 * The status line and the turn hooks as one CommonJS file (client/memctl/quick/run.ts, bundled by
 * `npm run build`): required here, they run without node's ES module loader or main.js.
 */
const QUICK = join(ROOT, 'dist', 'client', 'memctl', 'quick.cjs');
/** The reports users type (quick/reports-run.ts), bundled by `npm run build` as quick.cjs is. */
const REPORTS = join(ROOT, 'dist', 'client', 'memctl', 'reports.cjs');
/** The command line (what main.js runs for everything without a quick path). */
const CLI = join(ROOT, 'dist', 'client', 'memctl', 'cli.js');
/**
 * `npm run build` swaps dist/ in with two renames (microseconds apart); longer than this, no build
 * is about to land. Short, because a fresh clone pays it on every hook until its first build.
 */
const SWAP_WAIT_MS = 200;
/** Claude Code waits for an MCP server's start (MCP_TIMEOUT, 30 s by default); a build takes 10-60 s. */
const MCP_BUILD_WAIT_MS = 25_000;
/** Between looks for dist/. */
const POLL_MS = 10;
/** JSON-RPC's "internal error": the server cannot serve at all. */
const JSONRPC_INTERNAL_ERROR = -32603;

const [command, subcommand] = process.argv.slice(2);
const failsOpen = command === 'hook' || command === 'statusline';
/**
 * What quick.cjs may run: the status line, the turn hooks. A new session's SessionStart has its own
 * quick path in main.js (quick/session-start.ts, not in the bundle) and goes there at once.
 */
const triesQuick = command === 'statusline' || (command === 'hook' && subcommand !== 'session-start');
/** The reports reports.cjs prints while a daemon answers (quick/reports-run.ts). */
const triesReport =
  ['usage', 'status', 'sessions', 'search'].includes(command) &&
  !process.argv.includes('--help') &&
  !process.argv.includes('-h');
const notBuilt = `memd is not built: ${MAIN} is missing (run npm run build in ${ROOT})`;

function waitForMain() {
  const deadline = Date.now() + (command === 'mcp' ? MCP_BUILD_WAIT_MS : SWAP_WAIT_MS);
  while (!existsSync(MAIN) && Date.now() < deadline)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
  return existsSync(MAIN);
}

/** Hooks say nothing (Claude Code goes on without memd); the status line says memd is absent. */
function failOpen() {
  if (command === 'statusline') process.stdout.write('no memd\n');
  process.exitCode = 0;
}

/** Every request Claude Code sends gets the reason, until it closes stdin. */
function answerMcpWithError(message) {
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let id;
      try {
        id = JSON.parse(line).id;
      } catch {
        continue;
      }
      if (id === undefined || id === null) continue;
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: JSONRPC_INTERNAL_ERROR, message } })}\n`,
      );
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

/** No dist/ to run, and none landed in time. */
function notBuiltAnswer() {
  if (failsOpen) return failOpen();
  if (command === 'mcp') return answerMcpWithError(notBuilt);
  process.stderr.write(`memctl: ${notBuilt}\n`);
  process.exitCode = 1;
}

/**
 * A module of dist/ could not be read: a tree half-written by an older, non-atomic build, or one
 * that `npm run build` swapped while this process was still loading its modules.
 */
function isLoadFailure(error) {
  return (
    error instanceof SyntaxError ||
    error?.code === 'ERR_MODULE_NOT_FOUND' ||
    error?.code === 'MODULE_NOT_FOUND' ||
    error?.code === 'ENOENT'
  );
}

/**
 * The real entry once more, in a fresh process (this one's module cache keeps the failure), once
 * dist/ is back. memctl loads a command's modules before the command reads stdin or writes, so the
 * retry gets the input untouched. Hooks and the status line still fail open if it fails again;
 * an MCP server that fails before it says anything answers in JSON-RPC why.
 */
function rerun() {
  if (!waitForMain()) return notBuiltAnswer();
  const statusLine = command === 'statusline';
  const mcp = command === 'mcp';
  // Loaded here only: the hooks and the status line do not pay for it on every run.
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, [MAIN, ...process.argv.slice(2)], {
    stdio: ['inherit', statusLine || mcp ? 'pipe' : 'inherit', failsOpen ? 'ignore' : mcp ? 'pipe' : 'inherit'],
  });
  let printed = '';
  let logged = '';
  child.stdout?.on('data', (chunk) => {
    printed += chunk;
    if (mcp) process.stdout.write(chunk);
  });
  child.stderr?.on('data', (chunk) => (logged += chunk));
  // Claude Code stops an MCP server or a slow hook with a signal; the child goes with it.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('close', (code) => {
    if (mcp && code !== 0 && printed === '') {
      const reason = logged.split('\n').find((line) => /Error/.test(line)) ?? `exit ${code}`;
      return answerMcpWithError(`memd's build cannot be loaded (${reason.trim()}); run npm run build in ${ROOT}`);
    }
    if (!failsOpen) {
      process.stderr.write(logged);
      process.exitCode = code ?? 1;
      return;
    }
    if (statusLine) process.stdout.write(code === 0 && printed !== '' ? printed : 'no memd\n');
    process.exitCode = 0;
  });
}

function failed(error) {
  if (isLoadFailure(error)) return rerun();
  // Hooks and the status line fail open on anything else too.
  if (failsOpen) return failOpen();
  throw error;
}

function runMain() {
  import(pathToFileURL(MAIN).href).catch(failed);
}

/** Runs `run` on the bundle at `path` (a CommonJS file `npm run build` makes), failing as a load failure does when it cannot be read. */
function fromBundle(path, run) {
  let bundle;
  try {
    bundle = require(path);
  } catch (error) {
    return failed(error);
  }
  run(bundle).catch(failed);
}

/** The status line and the turn hooks from quick.cjs; the other hooks (it says which it ran) from main.js. */
function runQuickOrMain() {
  fromBundle(QUICK, async (quick) => {
    if (!(await quick.runQuick(process.argv.slice(2)))) runMain();
  });
}

/**
 * `usage`, `status`, `sessions` and `search` from reports.cjs while a daemon answers (issue 34); what the quick
 * path cannot do (no daemon, an error to explain) the command line does (cli.js, as main.js would).
 */
function runReportOrCli() {
  fromBundle(REPORTS, async (reports) => {
    const code = await reports.runReportQuick(process.argv.slice(2));
    if (code === null) import(pathToFileURL(CLI).href).catch(failed);
    else process.exitCode = code;
  });
}

if (!waitForMain()) notBuiltAnswer();
else if (triesQuick) runQuickOrMain();
else if (triesReport) runReportOrCli();
else runMain();
