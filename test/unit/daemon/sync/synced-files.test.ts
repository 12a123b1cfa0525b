/** Files in the sync folder (issue 35): read and written along plain dirs only, and always seen as changed. */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RefusedPath, readSynced, writeSynced } from '../../../../daemon/sync/synced-files.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-synced-files-'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('synced files', () => {
  it('moves the mtime of a same-size rewrite into the next second, so that rsync carries it', async () => {
    await writeSynced(root, ['dev', 'a.json'], 'one\n');
    const first = statSync(join(root, 'dev', 'a.json')).mtimeMs;
    // As if the first write had been in this very second.
    utimesSync(join(root, 'dev', 'a.json'), new Date(), new Date(Math.floor(Date.now() / 1000) * 1000 + 500));
    const copy = join(root, 'copy');
    execFileSync('/usr/bin/rsync', ['-a', `${join(root, 'dev')}/`, `${copy}/`]);
    await writeSynced(root, ['dev', 'a.json'], 'two\n');
    execFileSync('/usr/bin/rsync', ['-a', `${join(root, 'dev')}/`, `${copy}/`]);
    expect(readFileSync(join(copy, 'a.json'), 'utf8')).toBe('two\n');
    expect(first).toBeGreaterThan(0);
  });

  it('refuses a link on the way, a link at the end, a FIFO, and a file over the size given', async () => {
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'f.md'), 'x');
    symlinkSync(join(root, 'real'), join(root, 'linked'));
    await expect(readSynced(root, ['linked', 'f.md'], 100)).rejects.toBeInstanceOf(RefusedPath);
    symlinkSync(join(root, 'real', 'f.md'), join(root, 'real', 'g.md'));
    await expect(readSynced(root, ['real', 'g.md'], 100)).rejects.toBeInstanceOf(RefusedPath);
    execFileSync('mkfifo', [join(root, 'real', 'p.md')]);
    await expect(readSynced(root, ['real', 'p.md'], 100)).rejects.toBeInstanceOf(RefusedPath);
    await expect(readSynced(root, ['real', 'f.md'], 0)).rejects.toBeInstanceOf(RefusedPath);
    expect(await readSynced(root, ['real', 'f.md'], 100)).toBe('x');
    expect(await readSynced(root, ['missing', 'f.md'], 100)).toBeNull();
    await expect(writeSynced(root, ['linked', 'h.md'], 'y')).rejects.toBeInstanceOf(RefusedPath);
  });
});
