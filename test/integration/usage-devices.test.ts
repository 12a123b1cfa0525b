/**
 * usage.report and memctl usage by device over a real daemon (issue 35). Another machine's copy of
 * a session holds one of this machine's responses again (the session was copied there and resumed):
 * its transcript is a files row of that machine's device, as ingest files one decoded from the sync
 * folder, written into the index while the daemon is stopped. The response counts once, for the
 * machine whose device id sorts first (the other one here), and memctl shows each machine's share.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { eventually, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import { BILLING_SESSION, writeUsageCorpus } from '../helpers/usage-corpus.js';
import { indexFiles } from '../helpers/usage-index.js';

/** This machine's id, as setting sync up made it: it sorts after the other machine's. */
const THIS_DEVICE = 'ffff0000ffff0000';
const OTHER_DEVICE = 'bbbb0000bbbb0000';
const SYNC_ENV = { MEMD_SYNC_DEVICE_NAME: 'desk' };

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  if (ingest.progress.state !== 'live' || ingest.progress.filesPending !== 0 || ingest.stats.files === 0) return false;
  return (await client.usageReport({})).index.state === 'ready';
}

/** Another machine's copy of the billing session: its first response, every entry of it. */
function indexOtherMachinesCopy(sandbox: Sandbox): void {
  const db = new Database(sandbox.dbPath);
  try {
    const own = db
      .prepare('SELECT id, project FROM files WHERE session_id = ? AND agent_id IS NULL')
      .get(BILLING_SESSION) as { id: number; project: string };
    const messageId = db
      .prepare('SELECT message_id FROM entries WHERE file_id = ? AND usage_input IS NOT NULL ORDER BY offset LIMIT 1')
      .pluck()
      .get(own.id) as string;
    const id = (db.prepare('SELECT max(id) FROM files').pluck().get() as number) + 1;
    const path = join(sandbox.stateDir, 'sync', 'devices', OTHER_DEVICE, own.project, `${BILLING_SESSION}.jsonl`);
    indexFiles(db, [{ id, path, project: own.project, sessionId: BILLING_SESSION, device: OTHER_DEVICE, entries: [] }]);
    const columns = (db.pragma('table_info(entries)') as { name: string }[])
      .map((column) => column.name)
      .filter((name) => name !== 'file_id');
    db.prepare(
      `INSERT INTO entries (file_id, ${columns.join(', ')}) SELECT ?, ${columns.join(', ')} FROM entries WHERE file_id = ? AND message_id = ?`,
    ).run(id, own.id, messageId);
    db.prepare(
      'UPDATE files SET committed_offset = (SELECT max(offset) + 1 FROM entries WHERE file_id = ?) WHERE id = ?',
    ).run(id, id);
    // The sync reader names it from its device.json.
    db.prepare(
      "INSERT INTO sync_devices (id, name, version, first_seen, last_seen) VALUES (?, 'laptop', '0.1.0', 0, 0)",
    ).run(OTHER_DEVICE);
  } finally {
    db.close();
  }
}

describe('usage by device', () => {
  it("counts a response in two machines' files once, and memctl usage shows each machine's share", async () => {
    const sandbox = makeSandbox();
    writeUsageCorpus(sandbox.projectsDir);
    mkdirSync(sandbox.stateDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(sandbox.stateDir, 'device.json'), `${JSON.stringify({ id: THIS_DEVICE })}\n`);
    const env = { ...SYNC_ENV, MEMD_SYNC_DIR: join(sandbox.root, 'sync') };
    const first = await startDaemon(sandbox, undefined, env);
    const client = createClient({ env: { ...sandbox.env, ...env }, autostart: false });
    await eventually(() => caughtUp(client), "the book to count this machine's files");
    const alone = await client.usageReport({ by: 'device' });
    expect(alone.rows.map((row) => [row.key, row.name, row.local])).toEqual([[THIS_DEVICE, 'desk', true]]);
    client.close();
    first.child.kill('SIGTERM');
    await first.exited;

    indexOtherMachinesCopy(sandbox);
    await startDaemon(sandbox, undefined, env);
    const again = createClient({ env: { ...sandbox.env, ...env }, autostart: false });
    try {
      await eventually(() => caughtUp(again), "the book to count the other machine's copy");
      const report = await again.usageReport({ by: 'device' });
      // Counted once: the same totals as this machine's files alone.
      expect(report.totals).toEqual(alone.totals);
      const laptop = report.rows.find((row) => row.key === OTHER_DEVICE);
      expect(laptop).toMatchObject({ name: 'laptop', local: false, responses: 1 });
      expect(report.rows.find((row) => row.local)?.responses).toBe(alone.totals.responses - 1);
      const only = await again.usageReport({ device: 'laptop' });
      expect(only.totals).toEqual(
        expect.objectContaining({ responses: 1, output: laptop?.output, costUsd: laptop?.costUsd }),
      );
    } finally {
      again.close();
    }

    const table = await runMemctl(sandbox, ['usage', '--by', 'device', '--since', 'all'], env);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines.find((line) => line.startsWith('DEVICE'))).toBeDefined();
    expect(lines.some((line) => line.startsWith('laptop '))).toBe(true);
    expect(lines.some((line) => line.startsWith('desk (this machine) '))).toBe(true);
    const unknown = await runMemctl(sandbox, ['usage', '--device', 'phone'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no device "phone"');
    expect(unknown.stderr).toContain('laptop (bbbb0000bbbb0000)');
  });
});
