/**
 * Memory files across machines (issue 35): two or three machines, each with its own projects dir,
 * database and copy of the sync folder, and rsync as the sync engine between them.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { etagOf } from '../../../../daemon/memory/memdir/store.js';
import {
  carry,
  carryAll,
  type Machine,
  machine,
  machinesPerTest,
  manifestPath,
  PROJECT,
} from '../../../helpers/memdir-devices.js';

const place = machinesPerTest('memd-memdir-sync-');
const start = place.start;

/** A and B both holding `style` as A wrote it. */
async function inStep(a: Machine, b: Machine, content = 'Tabs.'): Promise<string> {
  const text = a.write('style', content);
  await a.scan();
  carry(a, b);
  await b.scan(a);
  expect(b.read('style')).toBe(text);
  await b.scan(a);
  carryAll(a, b);
  await a.scan(b);
  return text;
}

describe('memdir sync', () => {
  it('takes an edit made on one machine to the other, index and all, and back', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    const text = await inStep(a, b);
    expect(readFileSync(join(b.projectsDir, PROJECT, 'memory', 'MEMORY.md'), 'utf8')).toContain('[style](style.md)');
    const edited = b.write('style', 'Spaces, after all.');
    await b.scan(a);
    carry(b, a);
    await a.scan(b);
    expect(a.read('style')).toBe(edited);
    expect(a.read('style')).not.toBe(text);
    expect([a.sync.conflicts(), b.sync.conflicts()]).toEqual([[], []]);
  });

  it('keeps both versions of a memory changed on two machines, and lists the conflict on each', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    await inStep(a, b);
    const ours = a.write('style', 'Tabs, width 4.');
    const theirs = b.write('style', 'Spaces, width 2.');
    await a.scan(b);
    await b.scan(a);
    carryAll(a, b);
    await a.scan(b);
    await b.scan(a);
    expect(a.read('style')).toBe(ours);
    expect(b.read('style')).toBe(theirs);
    const [onA] = a.sync.conflicts();
    expect(a.sync.conflicts()).toHaveLength(1);
    expect(onA).toMatchObject({
      project: PROJECT,
      scope: 'private',
      name: 'style',
      device: b.id,
      localEtag: etagOf(ours),
      theirEtag: etagOf(theirs),
      path: a.path('style'),
    });
    expect(readFileSync(onA?.theirPath as string, 'utf8')).toBe(theirs);
    expect(b.sync.conflicts()).toMatchObject([{ device: a.id, localEtag: etagOf(theirs), theirEtag: etagOf(ours) }]);
    // Scans that bring nothing new leave it as it is.
    await a.scan(b);
    expect(a.sync.conflicts()).toHaveLength(1);
  });

  it('keeps only their newest version while a conflict stays open', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    await inStep(a, b);
    a.write('style', 'Tabs, width 4.');
    b.write('style', 'Spaces, width 2.');
    await a.scan();
    await b.scan();
    carry(b, a);
    await a.scan(b);
    const first = a.sync.conflicts()[0]?.theirPath as string;
    const newest = b.write('style', 'Spaces, width 3.');
    await b.scan();
    carry(b, a);
    await a.scan(b);
    const [conflict] = a.sync.conflicts();
    expect(a.sync.conflicts()).toHaveLength(1);
    expect(readFileSync(conflict?.theirPath as string, 'utf8')).toBe(newest);
    expect(existsSync(first)).toBe(false);
  });

  it('resolves a conflict on one machine, and the other takes that choice and closes its own', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    await inStep(a, b);
    a.write('style', 'Tabs, width 4.');
    const theirs = b.write('style', 'Spaces, width 2.');
    await a.scan();
    await b.scan();
    carryAll(a, b);
    await a.scan(b);
    await b.scan(a);
    const result = await a.sync.resolve({ project: PROJECT, name: 'style', keep: 'theirs' });
    expect(result).toMatchObject({ device: b.id, kept: 'theirs', etag: etagOf(theirs), remaining: 0 });
    expect(a.read('style')).toBe(theirs);
    expect(a.sync.conflicts()).toEqual([]);
    await a.scan(b);
    carryAll(a, b);
    await b.scan(a);
    await a.scan(b);
    expect(b.read('style')).toBe(theirs);
    expect([a.sync.conflicts(), b.sync.conflicts()]).toEqual([[], []]);
  });

  it('propagates a deletion as a tombstone', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    await inStep(a, b);
    b.write('other', 'Kept.');
    await b.scan(a);
    carry(b, a);
    await a.scan(b);
    a.remove('style');
    await a.scan(b);
    const manifest = JSON.parse(readFileSync(manifestPath(a, a), 'utf8')) as {
      memories: { name: string; etag: unknown }[];
    };
    expect(manifest.memories.find((entry) => entry.name === 'style')?.etag).toBeNull();
    carry(a, b);
    await b.scan(a);
    expect(b.read('style')).toBeNull();
    expect(b.read('other')).not.toBeNull();
    expect(readFileSync(join(b.projectsDir, PROJECT, 'memory', 'MEMORY.md'), 'utf8')).not.toContain('style');
    expect(b.sync.conflicts()).toEqual([]);
  });

  it('makes a deletion on one machine and an edit on the other a conflict, losing neither', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    await inStep(a, b);
    a.remove('style');
    const edited = b.write('style', 'Spaces.');
    await a.scan();
    await b.scan();
    carryAll(a, b);
    await a.scan(b);
    await b.scan(a);
    expect(a.read('style')).toBeNull();
    expect(b.read('style')).toBe(edited);
    const [onA] = a.sync.conflicts();
    expect(onA).toMatchObject({ localEtag: null, theirEtag: etagOf(edited) });
    expect(readFileSync(onA?.theirPath as string, 'utf8')).toBe(edited);
    expect(b.sync.conflicts()).toMatchObject([{ localEtag: etagOf(edited), theirEtag: null, theirPath: null }]);
  });

  it('changes nothing when an older copy of a manifest comes back', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    const old = await inStep(a, b);
    const snapshot = join(place.root(), 'old-a');
    cpSync(join(b.syncDir, a.id), snapshot, { recursive: true });
    const newer = a.write('style', 'Spaces.');
    await a.scan();
    carry(a, b);
    await b.scan(a);
    expect(b.read('style')).toBe(newer);
    // The engine rolls A's subtree back on B's side: the old manifest, the old file.
    rmSync(join(b.syncDir, a.id), { recursive: true });
    cpSync(snapshot, join(b.syncDir, a.id), { recursive: true });
    await b.scan(a);
    expect(b.read('style')).toBe(newer);
    expect(b.log.at('warn').map((line) => line.msg)).toContain(
      'memdir sync skips an older copy of a device’s manifest',
    );
    // Even with a counter that claims to be new, the old version is older than what B holds.
    const manifest = JSON.parse(readFileSync(manifestPath(b, a), 'utf8')) as { counter: number };
    writeFileSync(manifestPath(b, a), JSON.stringify({ ...manifest, counter: manifest.counter + 1_000 }));
    await b.scan(a);
    expect(b.read('style')).toBe(newer);
    expect(b.read('style')).not.toBe(old);
    expect(b.sync.conflicts()).toEqual([]);
  });

  it('waits for a manifest that arrived torn, and for a file the manifest lists that has not arrived', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    const text = a.write('style', 'Tabs.');
    await a.scan();
    carry(a, b);
    const whole = readFileSync(manifestPath(b, a), 'utf8');
    writeFileSync(manifestPath(b, a), whole.slice(0, whole.length / 2));
    await b.scan(a);
    expect(b.read('style')).toBeNull();
    writeFileSync(manifestPath(b, a), whole);
    const published = join(b.syncDir, a.id, 'memdir', PROJECT, 'style.md');
    rmSync(published);
    await b.scan(a);
    expect(b.read('style')).toBeNull();
    // Half of it, as a copy in progress leaves it: not the etag the manifest says.
    writeFileSync(published, text.slice(0, 20));
    await b.scan(a);
    expect(b.read('style')).toBeNull();
    writeFileSync(published, text);
    await b.scan(a);
    expect(b.read('style')).toBe(text);
  });

  it('skips a manifest of a newer format until this memd is as new', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    a.write('style', 'Tabs.');
    await a.scan();
    carry(a, b);
    const manifest = JSON.parse(readFileSync(manifestPath(b, a), 'utf8')) as Record<string, unknown>;
    writeFileSync(manifestPath(b, a), JSON.stringify({ ...manifest, format: 2 }));
    await b.scan(a);
    expect(b.read('style')).toBeNull();
    expect(b.log.at('warn')).toMatchObject([{ fields: { device: a.id, reason: expect.stringContaining('newer') } }]);
  });

  it('takes team memory the same way', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    const text = a.write('conventions', 'Small commits.', { scope: 'team' });
    await a.scan();
    carry(a, b);
    await b.scan(a);
    expect(b.read('conventions', 'team')).toBe(text);
    expect(readFileSync(join(b.projectsDir, PROJECT, 'memory', 'team', 'MEMORY.md'), 'utf8')).toContain('conventions');
  });

  it('takes a memory through a third machine, and a later one straight from its author', async () => {
    const [a, b, c] = start('a', 'b', 'c') as [Machine, Machine, Machine];
    const first = a.write('style', 'Tabs.');
    await a.scan();
    carry(a, b);
    await b.scan(a);
    await b.scan(a);
    carry(b, c);
    await c.scan(b);
    expect(c.read('style')).toBe(first);
    a.write('style', 'Tabs, width 4.');
    const third = a.write('style', 'Tabs, width 8.');
    await a.scan();
    carry(a, c);
    await c.scan(a, b);
    expect(c.read('style')).toBe(third);
    expect(c.sync.conflicts()).toEqual([]);
  });

  it('publishes nothing new after a restart, and no conflict follows', async () => {
    const [a, b] = start('a', 'b') as [Machine, Machine];
    await inStep(a, b);
    const restarted = b.restart();
    place.untrack(b);
    place.track(restarted);
    await restarted.scan(a);
    carryAll(a, restarted);
    await a.scan(restarted);
    expect([a.sync.conflicts(), restarted.sync.conflicts()]).toEqual([[], []]);
    const manifest = JSON.parse(readFileSync(manifestPath(restarted, restarted), 'utf8')) as {
      memories: { seq: number }[];
    };
    expect(manifest.memories).toHaveLength(1);
  });

  it('waits for a memory file written a moment ago, which Claude Code may still be writing', async () => {
    let now = Date.now();
    const a = place.track(machine(place.root(), 'quiet', { clock: () => now, quietMs: 1_000 }));
    a.write('style', 'Tabs.');
    now = Date.now();
    await a.scan();
    expect(existsSync(join(a.syncDir, a.id, 'memdir', PROJECT, 'style.md'))).toBe(false);
    now += 1_000;
    await a.scan();
    expect(existsSync(join(a.syncDir, a.id, 'memdir', PROJECT, 'style.md'))).toBe(true);
  });

  it('leaves nothing behind in its own subtree but memories and the manifest', async () => {
    const [a] = start('a') as [Machine];
    a.write('style', 'Tabs.');
    a.write('testing/flaky', 'Retry once.');
    await a.scan();
    const tree = readdirSync(join(a.syncDir, a.id, 'memdir'), { recursive: true })
      .map(String)
      .sort();
    expect(tree).toEqual([
      PROJECT,
      `${PROJECT}/style.md`,
      `${PROJECT}/testing`,
      `${PROJECT}/testing/flaky.md`,
      'manifest.json',
    ]);
  });
});
