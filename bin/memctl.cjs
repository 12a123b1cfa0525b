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
/** `npm run build` swaps dist/ in with two renames; longer than this, no build is about to land. */
const SWAP_WAIT_MS = 1000;
/** Claude Code waits for an MCP server's start (MCP_TIMEOUT, 30 s by default); a build takes 10-20 s. */
const MCP_BUILD_WAIT_MS = 25_000;
/** Between looks for dist/. */
const POLL_MS = 10;
/** JSON-RPC's "internal error": the server cannot serve at all. */
const JSONRPC_INTERNAL_ERROR = -32603;

const [command] = process.argv.slice(2);
const failsOpen = command === 'hook' || command === 'statusline';
const notBuilt = `memd is not built: ${MAIN} is missing (run npm run build in ${ROOT})`;

function waitForMain(ms) {
  const deadline = Date.now() + ms;
  while (!existsSync(MAIN) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
  return existsSync(MAIN);
}

/** Hooks say nothing (Claude Code goes on without memd); the status line says memd is absent. */
function failOpen() {
  if (command === 'statusline') process.stdout.write('no memd\n');
  process.exitCode = 0;
}

/** Every request Claude Code sends gets the reason, until it closes stdin. */
function answerMcpWithError() {
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
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: JSONRPC_INTERNAL_ERROR, message: notBuilt } })}\n`);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

if (!waitForMain(command === 'mcp' ? MCP_BUILD_WAIT_MS : SWAP_WAIT_MS)) {
  if (failsOpen) failOpen();
  else if (command === 'mcp') answerMcpWithError();
  else {
    process.stderr.write(`memctl: ${notBuilt}\n`);
    process.exitCode = 1;
  }
} else {
  import(pathToFileURL(MAIN).href).catch((error) => {
    // A tree half-written by an older, non-atomic build, or replaced under a running hook.
    if (failsOpen) return failOpen();
    throw error;
  });
}
