/**
 * Issue 13 item 12: the database deleted, replaced or overwritten while memd runs is found (by
 * the periodic check, or at once when SQLite says the file is broken), written back or rebuilt,
 * and said so in daemon.status, memctl status and memctl doctor.
 */
import { appendFileSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { checkDatabase } from '../../daemon/store/check.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/orders';
const id = (n: number) => `db000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** Short enough that a test waits for a check, not for the default 30 s. */
const FAST_CHECK = { MEMD_DB_CHECK_MS: '200' };

function session(sessionId: string): TranscriptWriter {
  const writer = new TranscriptWriter({ sessionId, cwd: CWD, version: '2.1.38' });
  writer.prompt('Ship the orders API');
  for (let n = 1; n <= 3; n += 1)
    writer.toolRound('Bash', { command: `npm test -- orders-${n}` }, 'ok', growingUsage(n));
  return writer;
}

async function indexed(client: Client, sessionId: string): Promise<number> {
  await eventually(
    async () =>
      (await client.sessionsList({ all: true })).sessions.some((s) => s.sessionId === sessionId && s.entries > 0),
    `${sessionId} to be indexed`,
  );
  return (await client.sessionsGet({ sessionId })).entries;
}

describe('the database file while memd runs', () => {
  it('deleted (with its WAL): written back from the open connection, nothing lost, and said so', async () => {
    const sandbox = makeSandbox();
    const writer = session(id(1));
    writeTranscript(mainPath(sandbox.projectsDir, CWD, id(1)), writer);
    await startDaemon(sandbox, undefined, FAST_CHECK);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const entries = await indexed(client, id(1));
      for (const suffix of ['', '-wal', '-shm']) rmSync(sandbox.dbPath + suffix, { force: true });
      await eventually(
        async () => (await client.daemonStatus()).database.whileRunning?.action === 'reopened',
        'the database to be written back',
      );
      expect((await client.daemonStatus()).database.whileRunning).toMatchObject({
        problem: 'deleted',
        count: 1,
        movedTo: null,
      });
      expect(checkDatabase(sandbox.dbPath)).toMatchObject({ exists: true, ok: true });
      // What was indexed before is there, and what comes after goes into the new file.
      expect((await client.sessionsGet({ sessionId: id(1) })).entries).toBe(entries);
      writer.toolRound('Bash', { command: 'npm run deploy' }, 'ok', growingUsage(4));
      writeTranscript(mainPath(sandbox.projectsDir, CWD, id(1)), writer);
      await eventually(
        async () => (await client.sessionsGet({ sessionId: id(1) })).entries > entries,
        'the append to be indexed',
      );
      const status = await runMemctl(sandbox, ['status']);
      expect(status.stdout).toContain('the database was deleted at');
      expect(status.stdout).toContain('memd wrote its content back and reopened it');
      expect(readdirSync(sandbox.stateDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      client.close();
    }
  });

  it('overwritten with garbage: moved aside and rebuilt from the transcripts', async () => {
    const sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, id(2)), session(id(2)));
    await startDaemon(sandbox, undefined, FAST_CHECK);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const entries = await indexed(client, id(2));
      const usage = (await client.sessionsGet({ sessionId: id(2) })).usage.total;
      // Same inode, other bytes: what a stray `cat > memd.sqlite` or a bad restore does.
      writeFileSync(sandbox.dbPath, 'this is not a database'.repeat(400));
      await eventually(
        async () => (await client.daemonStatus()).database.whileRunning?.action === 'rebuilt',
        'the database to be rebuilt',
      );
      const incident = (await client.daemonStatus()).database.whileRunning;
      expect(incident).toMatchObject({ problem: 'corrupt' });
      expect(incident?.movedTo).toMatch(/memd\.sqlite\.corrupt-/);
      expect(existsSync(incident?.movedTo ?? '')).toBe(true);
      // Read again from the transcripts: the same session, the same totals.
      await eventually(
        async () => (await client.sessionsGet({ sessionId: id(2) }).catch(() => null))?.entries === entries,
        'the session to be read again',
      );
      expect((await client.sessionsGet({ sessionId: id(2) })).usage.total).toEqual(usage);
      expect(checkDatabase(sandbox.dbPath)).toMatchObject({ ok: true });
      // The daemon keeps working on the new file.
      appendFileSync(mainPath(sandbox.projectsDir, CWD, id(2)), '');
      expect((await client.daemonStatus()).version).toBeTruthy();
    } finally {
      client.close();
    }
  });

  it('memctl doctor does not call a database deleted under a running memd "not created yet"', async () => {
    const sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, id(3)), session(id(3)));
    // A check far away: doctor runs while the file is gone.
    await startDaemon(sandbox, undefined, { MEMD_DB_CHECK_MS: '600000' });
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await indexed(client, id(3));
    } finally {
      client.close();
    }
    rmSync(sandbox.dbPath);
    const doctor = await runMemctl(sandbox, ['doctor', '--json']);
    const checks = (JSON.parse(doctor.stdout) as { checks: { label: string; ok: unknown; detail: string }[] }).checks;
    const database = checks.find((check) => check.label === 'database');
    expect(database).toMatchObject({ ok: false });
    expect(database?.detail).toContain('is missing while memd runs');
    expect(doctor.code).toBe(1);
  });
});
