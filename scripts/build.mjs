#!/usr/bin/env node
/**
 * `npm run build`: compiles into a fresh sibling of dist/ (`dist.next-<pid>-<time>`) and swaps it in
 * with renames, so that Claude Code's hooks, status line and MCP server, which run from dist/,
 * never meet a missing or half-written tree for longer than two renames (bin/memctl.cjs waits
 * those out). Concurrent builds each compile in their own directory; only the swap is serialized,
 * by a lock directory, and the last build to finish wins.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleQuick } from './bundle-quick.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const SWAP_LOCK = join(ROOT, 'dist.swap.lock');
/** The swap holds the lock for two renames; a lock this old was left by a killed build. */
const STALE_LOCK_MS = 30_000;
/** How long a build waits for another one's swap before giving up. */
const LOCK_DEADLINE_MS = 60_000;
/** Between looks at the lock: a swap takes well under a millisecond. */
const LOCK_POLL_MS = 20;
/** A leftover staging or old tree from a killed build is removed once it is this old. */
const LEFTOVER_AGE_MS = 10 * 60_000;
/** The entries package.json's `bin` names, made executable for npm link and direct runs. */
const EXECUTABLES = ['daemon/main.js', 'client/memctl/main.js'];

const stamp = `${process.pid}-${Date.now()}`;
const next = join(ROOT, `dist.next-${stamp}`);
const old = join(ROOT, `dist.old-${stamp}`);

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function compile() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(
    process.execPath,
    [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', next, '--tsBuildInfoFile', join(next, '.tsbuildinfo')],
    { stdio: 'inherit', cwd: ROOT },
  );
  for (const file of EXECUTABLES) chmodSync(join(next, file), 0o755);
  // The status line and the turn hooks as one CommonJS file, from the modules just compiled.
  bundleQuick(next);
}

function lock() {
  const deadline = Date.now() + LOCK_DEADLINE_MS;
  for (;;) {
    try {
      mkdirSync(SWAP_LOCK);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    try {
      if (Date.now() - statSync(SWAP_LOCK).mtimeMs > STALE_LOCK_MS) rmSync(SWAP_LOCK, { recursive: true, force: true });
    } catch {
      // Gone between the two calls: the next mkdir takes it.
    }
    if (Date.now() > deadline) throw new Error(`build: ${SWAP_LOCK} is held by another build; remove it if none runs`);
    sleep(LOCK_POLL_MS);
  }
}

function swap() {
  lock();
  try {
    try {
      renameSync(DIST, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    renameSync(next, DIST);
  } finally {
    rmSync(SWAP_LOCK, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/** Staging and old trees of builds that were killed (never this build's own, never a running one's). */
function removeLeftovers() {
  for (const name of readdirSync(ROOT)) {
    if (!name.startsWith('dist.next-') && !name.startsWith('dist.old-')) continue;
    const path = join(ROOT, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > LEFTOVER_AGE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another build removed it first.
    }
  }
}

removeLeftovers();
try {
  compile();
  swap();
} catch (error) {
  rmSync(next, { recursive: true, force: true });
  if (error.status !== undefined) process.exit(error.status ?? 1);
  throw error;
}
