/**
 * Issue 13 item 13: what crashed runs leave in the state dir is cleaned at start: temp files of
 * interrupted atomic writes, and all corrupt database copies but the newest.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
    expect(readdirSync(dir).sort()).toEqual(['memd.sqlite.corrupt-2026-12-01T10-00-00-000Z', 'memd.sqlite.corrupt-2026-12-01T10-00-00-000Z-wal', 'notes.tmp', 'rewind']);
    expect(readdirSync(join(dir, 'rewind', '20261203T090000Z-abcdef'))).toEqual(['manifest.json']);
  });

  it('the daemon cleans them when it starts', async () => {
    const sandbox = makeSandbox();
    mkdirSync(sandbox.stateDir, { recursive: true, mode: 0o700 });
    fill(sandbox.stateDir);
    await startDaemon(sandbox);
    expect(existsSync(join(sandbox.stateDir, '.config.json.4242.0123456789ab.tmp'))).toBe(false);
    expect(readdirSync(sandbox.stateDir).filter((name) => name.includes('.corrupt-'))).toEqual(['memd.sqlite.corrupt-2026-12-01T10-00-00-000Z', 'memd.sqlite.corrupt-2026-12-01T10-00-00-000Z-wal']);
  });
});
