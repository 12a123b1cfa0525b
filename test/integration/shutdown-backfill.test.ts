/**
 * Issue 28 item 8: `memctl stop` right after a first backfill, while the archive catches up on
 * the history (and the search index and usage book build), stops that background work at once:
 * the daemon exits 0 well inside a 2 s deadline (the target), logs `stopped`, and closes the
 * database cleanly (no `-wal` left, integrity ok). The history left is archived after the next start.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/ingest.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { eventually, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

/** The shutdown target of the issue (2 s) with room for a loaded two-core machine: past it the daemon kills itself, which the test sees. */
const DEADLINE_MS = 2_500;

interface Status {
  ingest: { progress: { state: string; filesPending: number } };
  archive: { state: string; pendingBytes: number };
}

async function status(sandbox: Sandbox): Promise<Status> {
  const socket = await RawSocket.open(sandbox.socketPath);
  try {
    return (await socket.request('daemon.status', {})).result as Status;
  } finally {
    socket.close();
  }
}

describe('shutdown right after a first backfill', () => {
  it('stops the archive catch-up at once, exits 0 and closes the database cleanly', async () => {
    const sandbox = makeSandbox();
    const lines = readdirSync(join(FIXTURES, 'big-outputs/projects'))
      .flatMap((project) =>
        readdirSync(join(FIXTURES, 'big-outputs/projects', project)).map((name) =>
          join(FIXTURES, 'big-outputs/projects', project, name),
        ),
      )
      .filter((path) => path.endsWith('.jsonl'))
      .flatMap((path) => readFileSync(path, 'utf8').split('\n').filter(Boolean));
    // 600 sessions of about 0.3 MB: a history the archive takes several seconds to gzip.
    const body = `${Array.from({ length: 12 }, (_, n) => lines[n % lines.length]).join('\n')}\n`;
    for (let n = 0; n < 600; n++) {
      const project = join(sandbox.projectsDir, `-home-user-s${n % 20}`);
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, `stop-${n}.jsonl`), body);
    }
    const daemon = await startDaemon(sandbox, undefined, {
      MEMD_SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS),
      MEMD_SHUTDOWN_GRACE_MS: '1000',
    });
    let archiveState = '';
    await eventually(
      async () => {
        const now = await status(sandbox);
        archiveState = now.archive.state;
        return now.ingest.progress.state === 'live' && now.ingest.progress.filesPending === 0;
      },
      'the backfill to finish',
      60_000,
    );
    const started = Date.now();
    daemon.child.kill('SIGTERM');
    const exit = await daemon.exited;
    // The figure for the report, not an assertion (speed belongs to the bench).
    console.log(`shutdown after the backfill took ${Date.now() - started} ms (archive was ${archiveState})`);
    // In the foreground the log goes to stderr, one JSON record a line.
    const log = daemon.output();
    expect(exit, log).toEqual({ code: 0, signal: null });
    expect(log).not.toContain('shutdown did not finish within its deadline');
    expect(log).not.toContain('shutdown step failed');
    const events = log
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg?: string }).msg);
    expect(events.at(-1)).toBe('stopped');
    expect(existsSync(`${sandbox.dbPath}-wal`)).toBe(false);
    const db = new Database(sandbox.dbPath, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    // What the catch-up left is archived after the next start.
    const again = await startDaemon(sandbox);
    await eventually(
      async () => {
        const now = await status(sandbox);
        return now.archive.state === 'live' && now.archive.pendingBytes === 0;
      },
      'the archive to catch up after the restart',
      60_000,
    );
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 120_000);
});
