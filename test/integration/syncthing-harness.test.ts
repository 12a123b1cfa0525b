/**
 * The harness that memd's sync tests stand on (test/helpers/syncthing.ts): two real Syncthing
 * instances on loopback carry a folder between two directories. A file written on one side arrives
 * byte for byte on the other through the watcher (no rescan asked for), an append follows it,
 * a removal goes back the other way, and what `.stignore` names (an atomic writer's temp) stays
 * home. Skipped, with the reason, where Syncthing cannot start.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/poll.js';
import { type SyncthingPair, startSyncthingPair, syncthingUsable } from '../helpers/syncthing.js';

const unusable = await syncthingUsable();
if (unusable !== null) process.stderr.write(`syncthing-harness.test.ts: skipped, ${unusable}\n`);

/** The watcher's one-second delay, the scan, the index exchange and the pull: ~1 s when idle; CI is slower. */
const PROPAGATION_DEADLINE_MS = 15_000;
/** Several of Syncthing's 128 KiB blocks, so that the pull is block by block. */
const FILE_BYTES = 1024 * 1024;
/** An atomic writer's temp name (daemon/fs/atomic.ts): `.<name>.<pid>.<12 hex>.tmp`. */
const ATOMIC_TEMP_IGNORE = '(?d).*.tmp';

/** Whether `path` holds exactly `expected` now. */
function holds(path: string, expected: Buffer): boolean {
  try {
    return readFileSync(path).equals(expected);
  } catch {
    return false;
  }
}

describe.skipIf(unusable !== null)(
  `two syncthing instances carrying one folder${unusable === null ? '' : ` (skipped: ${unusable})`}`,
  () => {
    let root: string;
    let dirA: string;
    let dirB: string;
    let pair: SyncthingPair;
    const timings: string[] = [];

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'memd-syncthing-test-'));
      dirA = join(root, 'a', 'sync');
      dirB = join(root, 'b', 'sync');
      const startedAt = Date.now();
      pair = await startSyncthingPair({ dirA, dirB, homeRoot: root, ignore: [ATOMIC_TEMP_IGNORE] });
      timings.push(`start-up ${Date.now() - startedAt} ms`);
    });

    afterAll(async () => {
      await pair?.stop();
      if (root !== undefined) rmSync(root, { recursive: true, force: true });
      if (timings.length > 0) process.stderr.write(`syncthing-harness.test.ts: ${timings.join(', ')}\n`);
    });

    it('carries a file written in A to B byte for byte, without a rescan asked for', async () => {
      const content = randomBytes(FILE_BYTES);
      mkdirSync(join(dirA, 'dev-a', 'archive'), { recursive: true });
      const writtenAt = Date.now();
      writeFileSync(join(dirA, 'dev-a', 'archive', 'session.jsonl.gz'), content);
      const arrived = join(dirB, 'dev-a', 'archive', 'session.jsonl.gz');
      await eventually(() => holds(arrived, content), 'the file in B', PROPAGATION_DEADLINE_MS);
      timings.push(`one file ${Date.now() - writtenAt} ms`);
      await pair.waitInSync();
    });

    it('carries an append to B', async () => {
      const path = join(dirA, 'dev-a', 'index.json');
      writeFileSync(path, '{"sessions":[');
      await pair.waitInSync();
      expect(readFileSync(join(dirB, 'dev-a', 'index.json'), 'utf8')).toBe('{"sessions":[');
      const appendedAt = Date.now();
      appendFileSync(path, '"s1"]}\n');
      const expected = Buffer.from('{"sessions":["s1"]}\n');
      await eventually(
        () => holds(join(dirB, 'dev-a', 'index.json'), expected),
        'the append in B',
        PROPAGATION_DEADLINE_MS,
      );
      timings.push(`one append ${Date.now() - appendedAt} ms`);
    });

    it('carries a removal in B back to A', async () => {
      await pair.waitInSync();
      const inA = join(dirA, 'dev-a', 'archive', 'session.jsonl.gz');
      expect(existsSync(inA)).toBe(true);
      const removedAt = Date.now();
      rmSync(join(dirB, 'dev-a', 'archive', 'session.jsonl.gz'));
      await eventually(() => !existsSync(inA), 'the file gone from A', PROPAGATION_DEADLINE_MS);
      timings.push(`one removal ${Date.now() - removedAt} ms`);
      await pair.waitInSync();
    });

    it('keeps what .stignore names at home, and waitInSync settles what was on disk when it was called', async () => {
      const temp = `.device.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      writeFileSync(join(dirA, 'dev-a', temp), 'half-written');
      writeFileSync(join(dirA, 'dev-a', 'device.json'), '{"name":"a"}');
      await pair.waitInSync();
      // No polling: waitInSync scanned A and waited until B needed nothing more.
      expect(readFileSync(join(dirB, 'dev-a', 'device.json'), 'utf8')).toBe('{"name":"a"}');
      expect(existsSync(join(dirB, 'dev-a', temp))).toBe(false);
      // The ignored temp does not keep its directory from being removed on the other side ((?d)).
      rmSync(join(dirB, 'dev-a'), { recursive: true });
      await pair.waitInSync();
      expect(existsSync(join(dirA, 'dev-a'))).toBe(false);
    });

    it('rescans one side on request', async () => {
      const writtenAt = Date.now();
      writeFileSync(join(dirB, 'from-b.txt'), 'b');
      await pair.rescan('b');
      await eventually(
        () => holds(join(dirA, 'from-b.txt'), Buffer.from('b')),
        'the file in A',
        PROPAGATION_DEADLINE_MS,
      );
      timings.push(`one file after a rescan ${Date.now() - writtenAt} ms`);
    });
  },
);
