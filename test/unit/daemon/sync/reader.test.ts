/**
 * The reader of other machines' subtrees (daemon/sync/reader.ts) over planted files: a device dir
 * that is a symlink, an archive file that is a FIFO or a symlink, a path that would leave its folder
 * and a name that is no device are passed over (nothing hangs, nothing outside is read), and the
 * real files beside them are decoded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../daemon/store/db.js';
import { createInlineDecoder, type DecodedFile } from '../../../../daemon/sync/decode-pool.js';
import { createReader } from '../../../../daemon/sync/reader.js';
import { createSyncStore } from '../../../../daemon/sync/store.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

const DEVICE = '0123456789abcdef';
const OTHER = 'fedcba9876543210';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place() {
  const root = mkdtempSync(join(tmpdir(), 'memd-reader-'));
  dirs.push(root);
  const syncDir = join(root, 'sync');
  const stateDir = join(root, 'state');
  mkdirSync(syncDir);
  mkdirSync(stateDir);
  const store = openStore(join(stateDir, 'memd.sqlite'), fakeLogger());
  return { root, syncDir, stateDir, store };
}

function writeDevice(syncDir: string, id: string, files: Record<string, Buffer>) {
  mkdirSync(join(syncDir, id, 'archive'), { recursive: true });
  writeFileSync(join(syncDir, id, 'device.json'), JSON.stringify({ format: 1, id, name: 'desk', version: '0.1.0' }));
  for (const [rel, bytes] of Object.entries(files)) {
    mkdirSync(join(syncDir, id, 'archive', rel, '..'), { recursive: true });
    writeFileSync(join(syncDir, id, 'archive', rel), bytes);
  }
}

describe('the sync reader', () => {
  it('decodes real files and passes planted links, FIFOs and stray names over', async () => {
    const { root, syncDir, stateDir, store } = place();
    const line = '{"type":"user","sessionId":"s1"}\n';
    writeDevice(syncDir, DEVICE, { 'p/s1/s1.jsonl.gz': gzipSync(line) });
    // A FIFO where an archive file would be, and a link to a file outside.
    mkdirSync(join(syncDir, DEVICE, 'archive', 'p', 's2'), { recursive: true });
    execFileSync('mkfifo', [join(syncDir, DEVICE, 'archive', 'p', 's2', 's2.jsonl.gz')]);
    writeFileSync(join(root, 'outside.gz'), gzipSync('{"secret":true}\n'));
    mkdirSync(join(syncDir, DEVICE, 'archive', 'p', 's3'), { recursive: true });
    symlinkSync(join(root, 'outside.gz'), join(syncDir, DEVICE, 'archive', 'p', 's3', 's3.jsonl.gz'));
    // A device dir that is a link, and a name that is no device id.
    mkdirSync(join(root, 'elsewhere'));
    writeDevice(join(root, 'elsewhere'), OTHER, { 'p/s4/s4.jsonl.gz': gzipSync(line) });
    symlinkSync(join(root, 'elsewhere', OTHER), join(syncDir, OTHER));
    writeDevice(syncDir, 'not-a-device', { 'p/s5/s5.jsonl.gz': gzipSync(line) });

    const decoded: DecodedFile[] = [];
    const reader = createReader({
      store: createSyncStore(store.db),
      syncDir,
      stateDir,
      self: 'aaaaaaaaaaaaaaaa',
      decoder: createInlineDecoder(),
      log: fakeLogger(),
      clock: () => 1_000,
      honour: async () => undefined,
      decoded: (files) => void decoded.push(...files),
    });
    await reader.scan();
    expect(decoded.map((file) => file.path)).toEqual([join(stateDir, 'sync', 'devices', DEVICE, 'p', 's1.jsonl')]);
    expect(readFileSync(decoded[0]?.path as string, 'utf8')).toBe(line);
    expect(existsSync(join(stateDir, 'sync', 'devices', DEVICE, 'p', 's3.jsonl'))).toBe(false);
    expect(existsSync(join(stateDir, 'sync', 'devices', OTHER))).toBe(false);
    expect(reader.states().map((state) => state.id)).toEqual([DEVICE]);
    store.close();
  });
});
