/**
 * Claude Code rewriting its global config while memctl edits it, for test/security/installers.test.ts.
 * Plain JS so that it runs as its own process.
 *
 *   node claude-json-writer-child.mjs <path> <writes> [--no-lock]
 *
 * Makes <writes> read-modify-write rounds as Claude Code saves `~/.claude.json`: takes the lock
 * `<path>.lock` (proper-lockfile, as Claude Code does), reads the file again, sets a top-level key
 * `writer-<n>` of its own, writes a temp file and renames it over, and lets go. With --no-lock it
 * skips the lock (a writer that does not take part). Prints `done <writes>` at the end.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const [path, writesArg, flag] = process.argv.slice(2);
const require = createRequire(resolve(import.meta.dirname, '../../package.json'));
const lockfile = require('proper-lockfile');
const locking = flag !== '--no-lock';

for (let round = 0; round < Number(writesArg); round++) {
  const release = locking
    ? await lockfile.lock(path, {
        lockfilePath: `${path}.lock`,
        realpath: false,
        stale: 10_000,
        retries: { retries: 1000, minTimeout: 1, maxTimeout: 20 },
      })
    : null;
  try {
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config[`writer-${round}`] = round;
    const temp = `${path}.tmp.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`);
    renameSync(temp, path);
  } finally {
    await release?.();
  }
}
process.stdout.write(`done ${writesArg}\n`);
