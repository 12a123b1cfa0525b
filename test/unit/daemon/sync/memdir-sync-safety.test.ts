/**
 * Memdir sync never follows a link or opens a FIFO, on either side: in the projects dir it
 * publishes from, in the one it merges into, and in the sync folder it reads (issue 35).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../../daemon/store/db.js';
import { createMemdirSync } from '../../../../daemon/sync/memdir-sync.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import {
  carry,
  type Machine,
  machinesPerTest,
  manifestPath,
  memoryText,
  PROJECT,
} from '../../../helpers/memdir-devices.js';

const place = machinesPerTest('memd-memdir-sync-safety-');
const start = place.start;

const published = (a: Machine) =>
  (JSON.parse(readFileSync(manifestPath(a, a), 'utf8')) as { memories: { name: string; etag: string | null }[] })
    .memories;

describe('memdir sync and links', () => {
  it('refuses a symlink and a FIFO planted in a memory folder, and publishes the rest', async () => {
    const [a] = start('a') as [Machine];
    a.write('style', 'Tabs.');
    const outside = join(place.root(), 'secret.md');
    writeFileSync(outside, memoryText('secret', 'Not a memory of this project.'));
    symlinkSync(outside, a.path('secret'));
    execFileSync('mkfifo', [a.path('pipe')]);
    await a.scan();
    expect(published(a).map((entry) => entry.name)).toEqual(['style']);
    expect(existsSync(join(a.syncDir, a.id, 'memdir', PROJECT, 'secret.md'))).toBe(false);
    const refused = a.log.at('warn').map((line) => line.fields?.path);
    expect(refused).toEqual(expect.arrayContaining([a.path('secret'), a.path('pipe')]));
  });

  it('publishes nothing through a memory dir that became a link, and deletes nothing either', async () => {
    const [a] = start('a') as [Machine];
    a.write('style', 'Tabs.');
    await a.scan();
    const memoryDir = join(a.projectsDir, PROJECT, 'memory');
    const elsewhere = join(place.root(), 'elsewhere');
    renameSync(memoryDir, elsewhere);
    writeFileSync(join(elsewhere, 'planted.md'), memoryText('planted', 'From outside.'));
    symlinkSync(elsewhere, memoryDir);
    await a.scan();
    expect(published(a)).toMatchObject([{ name: 'style', etag: expect.any(String) }]);
  });

  it('never writes a memory from another machine through a link in its place', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    const text = a.write('style', 'Tabs.');
    await a.scan();
    carry(a, b);
    const target = join(place.root(), 'target.md');
    writeFileSync(target, 'the user’s own file\n');
    mkdirSync(join(b.projectsDir, PROJECT, 'memory'));
    symlinkSync(target, b.path('style'));
    await b.scan(a);
    expect(readFileSync(target, 'utf8')).toBe('the user’s own file\n');
    expect(lstatSync(b.path('style')).isSymbolicLink()).toBe(true);
    // Once the link is gone the memory arrives.
    rmSync(b.path('style'));
    await b.scan(a);
    expect(b.read('style')).toBe(text);
  });

  it('does not follow a link in the sync folder to a file outside it', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    a.write('style', 'Tabs.');
    await a.scan();
    carry(a, b);
    const copy = join(b.syncDir, a.id, 'memdir', PROJECT);
    const moved = join(place.root(), 'moved');
    renameSync(copy, moved);
    symlinkSync(moved, copy);
    await b.scan(a);
    expect(b.read('style')).toBeNull();
    expect(b.log.at('warn').map((line) => line.msg)).toContain('memdir sync refuses a path in the sync folder');
  });
});

describe('memdir sync and team memory', () => {
  it('keeps a user memory put in team/ out of what it publishes (a user memory is never team memory)', async () => {
    const [a] = start('a') as [Machine];
    a.write('me', 'Prefers short answers.', { scope: 'team', type: 'user' });
    a.write('conventions', 'Small commits.', { scope: 'team' });
    await a.scan();
    expect(published(a).map((entry) => entry.name)).toEqual(['conventions']);
  });

  it('refuses a user memory that another machine lists as team memory', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    a.write('conventions', 'Small commits.', { scope: 'team' });
    await a.scan();
    carry(a, b);
    // A's copy as an older or hostile memd might make it: the file swapped for a user memory, the etag to match.
    const file = join(b.syncDir, a.id, 'memdir', PROJECT, 'team', 'conventions.md');
    const forged = memoryText('conventions', 'About the person.', 'user');
    writeFileSync(file, forged);
    const manifest = JSON.parse(readFileSync(manifestPath(b, a), 'utf8')) as { memories: { etag: string }[] };
    const { etagOf } = await import('../../../../daemon/memory/memdir/store.js');
    (manifest.memories[0] as { etag: string }).etag = etagOf(forged);
    writeFileSync(manifestPath(b, a), JSON.stringify(manifest));
    await b.scan(a);
    expect(b.read('conventions', 'team')).toBeNull();
    expect(b.log.at('warn').map((line) => line.msg)).toContain('memdir sync refuses a memory from another machine');
  });
});

describe('memdir sync and its database', () => {
  it('takes its rows back from its own manifest when the database is rebuilt, so nothing looks new or concurrent', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    const text = a.write('style', 'Tabs.');
    await a.scan();
    carry(a, b);
    await b.scan(a);
    await b.scan(a);
    b.close();
    place.untrack(b);
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(b.stateDir, `memd.sqlite${suffix}`), { force: true });
    const store = openStore(join(b.stateDir, 'memd.sqlite'), fakeLogger());
    const log = fakeLogger();
    const rebuilt = createMemdirSync({
      db: store.db,
      projectsDir: b.projectsDir,
      stateDir: b.stateDir,
      syncDir: b.syncDir,
      deviceId: b.id,
      log,
      clock: () => Date.now(),
      quietMs: 0,
    });
    try {
      await rebuilt.publish();
      await rebuilt.receive([a.id]);
      expect(log.at('info').map((line) => line.msg)).toContain(
        'memdir sync: rows taken back from this machine’s own manifest',
      );
      expect(rebuilt.conflicts()).toEqual([]);
      expect(b.read('style')).toBe(text);
      const manifest = JSON.parse(readFileSync(manifestPath(b, b), 'utf8')) as { memories: { version: object }[] };
      expect(manifest.memories[0]?.version).toEqual({ [a.id]: 1 });
    } finally {
      store.close();
    }
  });

  it('does nothing with the sync folder when sync is off, and still lists conflicts', async () => {
    const store = openStore(join(place.root(), 'off.sqlite'), fakeLogger());
    try {
      const sync = createMemdirSync({
        db: store.db,
        projectsDir: join(place.root(), 'no-projects'),
        stateDir: place.root(),
        syncDir: '',
        deviceId: '0123456789abcdef',
        log: fakeLogger(),
        clock: () => Date.now(),
      });
      await sync.publish();
      await sync.receive(['fedcba9876543210']);
      expect([sync.syncing, sync.conflicts()]).toEqual([false, []]);
    } finally {
      store.close();
    }
  });
});
