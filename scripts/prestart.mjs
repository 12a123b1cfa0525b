#!/usr/bin/env node
/**
 * `npm start`'s first step: say "already running" at once when a daemon holds the state dir's lock
 * (the same check, and words, as the daemon's own start), instead of after a 10-20 s rebuild; else
 * build (scripts/build.mjs) and let `start` run the daemon. The lock's path comes from the built
 * shared/paths.js when there is one: with no dist/ yet, no daemon of this checkout can be running.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATHS_MODULE = join(ROOT, 'dist', 'shared', 'paths.js');
/** The daemon's own "already running" exit (daemon/lifecycle/bootstrap.ts, fail()). */
const EXIT_FAILURE = 1;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error.code === 'EPERM';
  }
}

async function runningPid() {
  if (!existsSync(PATHS_MODULE)) return undefined;
  let lockPath;
  try {
    const { resolvePaths } = await import(pathToFileURL(PATHS_MODULE).href);
    lockPath = resolvePaths(process.env, homedir()).lockPath;
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').split('\n')[0] ?? '', 10);
    return Number.isSafeInteger(pid) && pid > 0 && alive(pid) ? { pid, lockPath } : undefined;
  } catch {
    // No lock file, or a dist/ from another version: the daemon's own start decides.
    return undefined;
  }
}

const running = await runningPid();
if (running !== undefined) {
  process.stderr.write(
    `memd: already running as pid ${running.pid} (lock ${running.lockPath}); stop it with: memctl stop\n`,
  );
  process.exit(EXIT_FAILURE);
}
await import('./build.mjs');
