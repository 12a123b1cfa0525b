import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMemdirStore,
  etagOf,
  type MemdirStore,
  projectFolder,
} from '../../../../../daemon/memory/memdir/store.js';
import { serializeMemory } from '../../../../../shared/memdir/frontmatter.js';

const PROJECT = '-home-user-src-app';
let root: string;
let now: number;
let store: MemdirStore;
const memoryDir = () => join(root, PROJECT, 'memory');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-memdir-store-'));
  mkdirSync(join(root, PROJECT));
  now = Date.parse('2026-12-02T10:00:00.000Z');
  store = createMemdirStore({ projectsDir: root, clock: () => now });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the memdir store', () => {
  it('lists nothing before the first memory, without creating the dir', async () => {
    expect(await store.list(PROJECT)).toMatchObject({ memories: [], skipped: [], index: { lines: 0, inStep: true } });
    await expect(store.read(PROJECT, 'private', 'x')).rejects.toMatchObject({ kind: 'NotFound' });
    expect(await store.delete({ project: PROJECT, name: 'x' })).toMatchObject({ deleted: false });
  });

  it('keeps the created time, moves updated, and changes the etag on every write', async () => {
    const first = await store.write({
      project: PROJECT,
      name: 'style',
      type: 'project',
      description: 'House style',
      content: 'Tabs.',
    });
    now += 60_000;
    const second = await store.write({ project: PROJECT, name: 'style', type: 'project', content: 'Spaces.' });
    expect(second).toMatchObject({
      isNew: false,
      created: first.created,
      updated: '2026-12-02T10:01:00.000Z',
      description: 'House style',
    });
    expect(second.etag).not.toBe(first.etag);
    expect((await store.read(PROJECT, undefined, 'style')).content).toBe('Spaces.\n');
  });

  it('orders the index newest first and says when MEMORY.md was edited by hand; the next write mends it', async () => {
    await store.write({ project: PROJECT, name: 'a', type: 'project', description: 'first', content: 'x' });
    now += 1_000;
    await store.write({ project: PROJECT, name: 'b/c', type: 'reference', description: 'second', content: 'y' });
    const index = join(memoryDir(), 'MEMORY.md');
    expect(readFileSync(index, 'utf8')).toBe('- [b/c](b/c.md) — second\n- [a](a.md) — first\n');
    writeFileSync(index, 'hand-written\n');
    expect((await store.list(PROJECT)).index.inStep).toBe(false);
    await store.delete({ project: PROJECT, name: 'a' });
    expect(readFileSync(index, 'utf8')).toBe('- [b/c](b/c.md) — second\n');
    expect((await store.list(PROJECT)).index).toMatchObject({ inStep: true, lines: 1 });
  });

  it('reports files that are not memories and links in the dir, and never follows a link', async () => {
    await store.write({ project: PROJECT, name: 'real', type: 'feedback', content: 'x' });
    writeFileSync(join(memoryDir(), 'notes.md'), 'no frontmatter\n');
    const outside = join(root, 'outside.md');
    writeFileSync(outside, '---\nname: outside\ntype: user\n---\nsecret\n');
    symlinkSync(outside, join(memoryDir(), 'link.md'));
    const listed = await store.list(PROJECT);
    expect(listed.memories.map((memory) => memory.name)).toEqual(['real']);
    expect(listed.skipped.map((skipped) => skipped.reason).sort()).toEqual([
      'a symbolic link (not followed)',
      'no frontmatter (the file does not start with ---)',
    ]);
    await expect(store.read(PROJECT, 'private', 'link')).rejects.toMatchObject({ kind: 'PathRejected' });
    await expect(store.read(PROJECT, 'private', 'notes')).rejects.toMatchObject({ kind: 'InvalidMemoryFile' });
  });

  it('refuses a delete whose etag is stale, and deletes with the current one', async () => {
    const written = await store.write({ project: PROJECT, name: 'gone', type: 'project', content: 'x' });
    now += 1;
    const changed = await store.write({ project: PROJECT, name: 'gone', type: 'project', content: 'y' });
    await expect(store.delete({ project: PROJECT, name: 'gone', ifMatch: written.etag })).rejects.toMatchObject({
      kind: 'Conflict',
      data: { etag: changed.etag },
    });
    expect(await store.delete({ project: PROJECT, name: 'gone', ifMatch: changed.etag })).toMatchObject({
      deleted: true,
      index: { lines: 0 },
    });
  });

  it('keeps team memory apart, with its own index, and private listings never show it', async () => {
    await store.write({ project: PROJECT, scope: 'team', name: 'deploy', type: 'project', content: 'x' });
    await store.write({ project: PROJECT, name: 'mine', type: 'user', content: 'y' });
    expect((await store.list(PROJECT)).memories.map((memory) => memory.name)).toEqual(['mine']);
    expect((await store.list(PROJECT, 'team')).memories.map((memory) => memory.name)).toEqual(['deploy']);
    expect(readFileSync(join(memoryDir(), 'team', 'MEMORY.md'), 'utf8')).toBe('- [deploy](deploy.md)\n');
  });

  it('takes a project as a folder name or an absolute path, and nothing else', () => {
    expect(projectFolder('/home/user/src/app')).toBe(PROJECT);
    expect(projectFolder(PROJECT)).toBe(PROJECT);
    for (const bad of ['..', 'a/b', '-x/../y', 'C:\\x', ''])
      expect(() => projectFolder(bad)).toThrow(/project must be/);
  });

  it("writes another machine's text byte for byte, only over the version named, and held to write's rules", async () => {
    const text = serializeMemory({
      name: 'style',
      description: 'House style',
      type: 'project',
      created: '2026-12-01T00:00:00.000Z',
      updated: '2026-12-01T00:00:00.000Z',
      content: 'Tabs.',
    });
    const put = await store.putText({ project: PROJECT, scope: 'private', name: 'style', text, ifMatch: null });
    expect(put.etag).toBe(etagOf(text));
    expect(readFileSync(join(memoryDir(), 'style.md'), 'utf8')).toBe(text);
    expect(readFileSync(join(memoryDir(), 'MEMORY.md'), 'utf8')).toBe('- [style](style.md) — House style\n');
    await expect(
      store.putText({ project: PROJECT, scope: 'private', name: 'style', text, ifMatch: null }),
    ).rejects.toMatchObject({ kind: 'Conflict' });
    await expect(
      store.putText({ project: PROJECT, scope: 'private', name: 'x', text: 'no frontmatter', ifMatch: null }),
    ).rejects.toMatchObject({ code: -32602 });
    const user = text.replace('type: project', 'type: user');
    await expect(
      store.putText({ project: PROJECT, scope: 'team', name: 'me', text: user, ifMatch: null }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      store.putText({ project: PROJECT, scope: 'private', name: '../escape', text, ifMatch: null }),
    ).rejects.toMatchObject({ kind: 'PathRejected' });
    await expect(
      store.removeText({ project: PROJECT, scope: 'private', name: 'style', ifMatch: 'f'.repeat(32) }),
    ).rejects.toMatchObject({
      kind: 'Conflict',
    });
    expect(await store.removeText({ project: PROJECT, scope: 'private', name: 'style', ifMatch: put.etag })).toBe(true);
    expect(readFileSync(join(memoryDir(), 'MEMORY.md'), 'utf8')).toBe('');
  });
});
