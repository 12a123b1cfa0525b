/**
 * Issue 13 item 13: what crashed runs leave in the state dir is cleaned at start: temp files of
 * interrupted atomic writes, and all corrupt database copies but the newest.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../daemon/fs/atomic.js';
import { cleanLeftovers } from '../../daemon/store/leftovers.js';
import { fakeLogger } from '../helpers/fake-logger.js';
import { makeSandbox, startDaemon } from '../helpers/sandbox.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function fill(stateDir: string): void {
  mkdirSync(join(stateDir, 'rewind', '20261203T090000Z-abcdef'), { recursive: true });
  writeFileSync(join(stateDir, '.config.json.4242.0123456789ab.tmp'), 'half');
  writeFileSync(join(stateDir, 'rewind', '20261203T090000Z-abcdef', '.manifest.json.4242.ba9876543210.tmp'), 'half');
  writeFileSync(join(stateDir, 'rewind', '20261203T090000Z-abcdef', 'manifest.json'), '{}');
  for (const at of ['2026-11-01T10-00-00-000Z', '2026-11-20T10-00-00-000Z', '2026-12-01T10-00-00-000Z']) {
    writeFileSync(join(stateDir, `memd.sqlite.corrupt-${at}`), 'x'.repeat(1_000));
    writeFileSync(join(stateDir, `memd.sqlite.corrupt-${at}-wal`), 'x');
  }
  writeFileSync(join(stateDir, 'notes.tmp'), 'not ours');
}

describe('leftovers of earlier runs', () => {
  it('removes temp files and all corrupt copies but the newest, nothing else', () => {
    dir = mkdtempSync(join(tmpdir(), 'memd-leftovers-'));
    fill(dir);
    const removed = cleanLeftovers(dir, join(dir, 'memd.sqlite'), fakeLogger());
    expect(removed.tempFiles).toHaveLength(2);
    expect(removed.corruptCopies).toHaveLength(4);
    expect(readdirSync(dir).sort()).toEqual([
      'memd.sqlite.corrupt-2026-12-01T10-00-00-000Z',
      'memd.sqlite.corrupt-2026-12-01T10-00-00-000Z-wal',
      'notes.tmp',
      'rewind',
    ]);
    expect(readdirSync(join(dir, 'rewind', '20261203T090000Z-abcdef'))).toEqual(['manifest.json']);
  });

  it('the daemon cleans them when it starts', async () => {
    const sandbox = makeSandbox();
    mkdirSync(sandbox.stateDir, { recursive: true, mode: 0o700 });
    fill(sandbox.stateDir);
    await startDaemon(sandbox);
    expect(existsSync(join(sandbox.stateDir, '.config.json.4242.0123456789ab.tmp'))).toBe(false);
    expect(readdirSync(sandbox.stateDir).filter((name) => name.includes('.corrupt-'))).toEqual([
      'memd.sqlite.corrupt-2026-12-01T10-00-00-000Z',
      'memd.sqlite.corrupt-2026-12-01T10-00-00-000Z-wal',
    ]);
  });

  it('the daemon removes undo dirs a crash left without a manifest, and keeps complete ones', async () => {
    const sandbox = makeSandbox();
    const rewind = join(sandbox.stateDir, 'rewind');
    mkdirSync(join(rewind, '20261203T090000Z-00000001'), { recursive: true, mode: 0o700 });
    writeFileSync(join(rewind, '20261203T090000Z-00000001', 'file-0'), 'a copy, no manifest yet');
    mkdirSync(join(rewind, '20261203T091500Z-00000002'));
    writeFileSync(join(rewind, '20261203T091500Z-00000002', 'manifest.json'), '{}');
    mkdirSync(join(rewind, 'not-an-undo-id'));
    await startDaemon(sandbox);
    expect(readdirSync(rewind).sort()).toEqual(['20261203T091500Z-00000002', 'not-an-undo-id']);
  });

  it("an atomic write removes its target's temps of crashed writers, not a live writer's or another file's", async () => {
    dir = mkdtempSync(join(tmpdir(), 'memd-leftovers-'));
    const target = join(dir, 'summary.md');
    // A pid above the kernel's maximum (4,194,304) never runs.
    const crashed = `.summary.md.2147483646.0123456789ab.tmp`;
    const live = `.summary.md.${process.ppid}.ba9876543210.tmp`;
    const other = `.notes.md.2147483646.0123456789ab.tmp`;
    for (const name of [crashed, live, other]) writeFileSync(join(dir, name), 'half');
    await writeFileAtomic(target, 'whole');
    expect(readdirSync(dir).sort()).toEqual([other, live, 'summary.md'].sort());
  });
});
