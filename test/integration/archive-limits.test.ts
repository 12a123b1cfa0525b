/**
 * The archive when things go wrong (issue 18): memd killed (-9) while it archives loses nothing
 * the index holds; a full disk, or the size cap, stops archiving with a clear status, leaves
 * nothing half-written, and the daemon goes on.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { eventually, keepForFile, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const PROJECT = '-home-user-src-archive-limits';

/** A transcript of `lines` user prompts carrying random text (so that it compresses slowly and little). */
function writeTranscript(sandbox: Sandbox, sessionId: string, lines: number, bytesPerLine: number): string {
  const dir = join(sandbox.projectsDir, PROJECT);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${sessionId}.jsonl`);
  const out: string[] = [];
  for (let at = 0; at < lines; at++) {
    const uuid = `${sessionId.slice(0, 24)}${String(at).padStart(12, '0')}`;
    out.push(
      JSON.stringify({
        type: 'user',
        uuid,
        parentUuid: null,
        sessionId,
        timestamp: new Date(Date.UTC(2026, 11, 1, 10, 0, at)).toISOString(),
        cwd: '/home/user/src/archive-limits',
        message: { role: 'user', content: `note ${randomBytes(bytesPerLine / 2).toString('hex')}` },
      }),
    );
  }
  writeFileSync(path, `${out.join('\n')}\n`);
  return path;
}

const status = async (client: Client) => (await client.daemonStatus()).archive;

describe('the archive, killed while it works', () => {
  it('loses nothing the index holds after kill -9, and cuts what was half-written', async () => {
    const sandbox = makeSandbox();
    const sessionId = '74000000-0000-4000-8000-000000000001';
    const path = writeTranscript(sandbox, sessionId, 1_200, 64 * 1024);
    let daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    let client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await status(client)).sourceBytes > 0, 'the archive to start', 60_000);
    const partial = await status(client);
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    client.close();

    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(
      async () => {
        const now = await status(client);
        return now.state === 'live' && now.pendingBytes === 0 && now.sourceBytes > 0;
      },
      'the archive to catch up after the restart',
      60_000,
    );
    const archived = join(sandbox.stateDir, 'archive', PROJECT, sessionId, `${sessionId}.jsonl.gz`);
    expect(gunzipSync(readFileSync(archived)).equals(readFileSync(path))).toBe(true);
    expect((await client.archiveVerify({})).problems).toEqual([]);
    // Killed before the end (else this test proves less than it says).
    expect(partial.sourceBytes).toBeLessThan(readFileSync(path).length);
    client.close();
  }, 120_000);
});

describe('the archive without room', () => {
  const mounts: string[] = [];
  afterAll(() => {
    for (const dir of mounts) spawnSync('umount', ['-l', dir]);
  });

  // A small tmpfs under the state dir stands for a full disk: mounting one needs root.
  const mountable = (() => {
    if (process.getuid?.() !== 0) return false;
    const probe = join(makeSandbox().root, 'probe');
    mkdirSync(probe);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0;
    if (mounted) spawnSync('umount', [probe]);
    return mounted;
  })();

  it.skipIf(!mountable)(
    'stops archiving on a full disk with the reason, keeps what it has whole, and the daemon goes on',
    async () => {
      const sandbox = makeSandbox();
      const archiveDir = join(sandbox.stateDir, 'archive');
      mkdirSync(archiveDir, { recursive: true, mode: 0o700 });
      expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', archiveDir]).status).toBe(0);
      mounts.push(archiveDir);
      writeTranscript(sandbox, '74000000-0000-4000-8000-000000000002', 4, 1_000);
      writeTranscript(sandbox, '74000000-0000-4000-8000-000000000003', 40, 32 * 1024);
      const daemon = await startDaemon(sandbox);
      keepForFile(sandbox, daemon);
      const client = createClient({ env: sandbox.env, autostart: false });
      await eventually(async () => (await status(client)).state === 'stopped', 'archiving to stop', 30_000);
      const stopped = await status(client);
      expect(stopped.reason).toMatch(/the disk is full \(ENOSPC\)/);
      expect((await client.archiveVerify({})).problems).toEqual([]);
      expect((await client.sessionsList({})).sessions.length).toBe(2);
      client.close();
    },
  );

  it('stops at the size cap with the reason', async () => {
    const sandbox = makeSandbox();
    writeTranscript(sandbox, '74000000-0000-4000-8000-000000000004', 20, 8 * 1024);
    const daemon = await startDaemon(sandbox, undefined, { MEMD_ARCHIVE_MAX_BYTES: '50000' });
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await status(client)).state === 'stopped', 'archiving to stop', 30_000);
    expect((await status(client)).reason).toMatch(/size cap/);
    expect((await status(client)).archiveBytes).toBeLessThanOrEqual(50_000);
    expect((await client.archiveVerify({})).problems).toEqual([]);
    client.close();
  });
});
