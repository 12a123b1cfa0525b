/**
 * Issue 13 item 11: sessions whose files are gone, and empty ones, are history. They keep their
 * totals (sessions.get answers) but a default list leaves them out, and every default list is
 * bounded, so a heavy user's 50,000 sessions are not summarized and sent at once.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIST_LIMIT } from '../../daemon/sessions/list.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/ledger';
const id = (n: number) => `5e000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** More sessions than one default page holds. */
const SESSIONS = DEFAULT_LIST_LIMIT + 30;

function session(sessionId: string, n: number): TranscriptWriter {
  const writer = new TranscriptWriter({
    sessionId,
    cwd: CWD,
    version: '2.1.38',
    startMs: Date.parse('2026-11-01T00:00:00.000Z') + n * 60_000,
  });
  writer.prompt(`Reconcile ledger ${n}`);
  writer.toolRound('Bash', { command: `make ledger-${n}` }, 'ok', growingUsage(1));
  return writer;
}

describe('deleted and empty sessions', () => {
  it('are kept as history, listed only with all; default lists are bounded and page', async () => {
    const sandbox = makeSandbox();
    for (let n = 0; n < SESSIONS; n += 1) writeTranscript(mainPath(sandbox.projectsDir, CWD, id(n)), session(id(n), n));
    writeFileSync(mainPath(sandbox.projectsDir, CWD, id(9_000)), '');
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () =>
          (await client.daemonStatus()).ingest.progress.filesPending === 0 &&
          (await client.sessionsList({ all: true, limit: 10_000 })).sessions.length === SESSIONS + 1,
        'every session to be indexed',
        30_000,
      );
      const newest = id(SESSIONS - 1);
      const before = await client.sessionsGet({ sessionId: newest });
      rmSync(mainPath(sandbox.projectsDir, CWD, newest));
      await eventually(
        async () => (await client.sessionsGet({ sessionId: newest })).gone,
        'the deleted session to be marked gone',
      );

      const first = await client.sessionsList();
      expect(first.sessions).toHaveLength(DEFAULT_LIST_LIMIT);
      expect(first).toMatchObject({ total: SESSIONS - 1, hidden: 2 });
      expect(first.sessions.map((s) => s.sessionId)).not.toContain(newest);
      expect(first.nextCursor).not.toBeNull();
      const second = await client.sessionsList({ cursor: first.nextCursor ?? '' });
      expect(second.sessions).toHaveLength(SESSIONS - 1 - DEFAULT_LIST_LIMIT);
      expect(second.nextCursor).toBeNull();
      const ids = new Set([...first.sessions, ...second.sessions].map((s) => s.sessionId));
      expect(ids.size).toBe(SESSIONS - 1);

      // History keeps its totals, and `all` lists it.
      const gone = await client.sessionsGet({ sessionId: newest });
      expect(gone.usage.total).toEqual(before.usage.total);
      const all = await client.sessionsList({ all: true, limit: 10 });
      expect(all.sessions.map((s) => s.sessionId)).toContain(newest);
      expect(all).toMatchObject({ total: SESSIONS + 1, hidden: 0 });

      const table = await runMemctl(sandbox, ['sessions'], { COLUMNS: '160' });
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(`50 of ${SESSIONS - 1} shown; next page: memctl sessions --cursor `);
      expect(table.stdout).toContain('2 sessions whose files are gone or empty are not listed (--all lists them)');
      const everything = await runMemctl(sandbox, ['sessions', '--all', '--json', '--limit', '10000']);
      expect((JSON.parse(everything.stdout) as { sessions: unknown[] }).sessions).toHaveLength(SESSIONS + 1);
    } finally {
      client.close();
    }
  }, 60_000);
});
