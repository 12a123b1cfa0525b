/**
 * Machines for memdir sync tests (issue 35): each with its own projects dir, state dir, SQLite
 * database and copy of the sync folder, as separate machines have; `carry` plays the sync engine,
 * copying one machine's subtree into another's copy with rsync (whole, or as the test decides).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openStore, type Store } from '../../daemon/store/db.js';
import { createMemdirSync, type MemdirSync } from '../../daemon/sync/memdir-sync.js';
import { serializeMemory } from '../../shared/memdir/frontmatter.js';
import type { MemoryScope, MemoryType } from '../../shared/protocol/memdir.js';
import { type FakeLogger, fakeLogger } from './fake-logger.js';

export const PROJECT = '-home-user-src-app';

export interface Machine {
  name: string;
  id: string;
  projectsDir: string;
  stateDir: string;
  syncDir: string;
  log: FakeLogger;
  store: Store;
  sync: MemdirSync;
  /** The memory file's path on this machine. */
  path(name: string, scope?: MemoryScope): string;
  /** Writes a memory file as Claude Code would (in place, not through memd). */
  write(name: string, content: string, options?: { scope?: MemoryScope; type?: MemoryType }): string;
  read(name: string, scope?: MemoryScope): string | null;
  remove(name: string, scope?: MemoryScope): void;
  /** What the sync service does on every scan: publish, then receive from the others. */
  scan(...others: Machine[]): Promise<void>;
  /** The same machine after a restart of memd (same state dir and database file). */
  restart(): Machine;
  close(): void;
}

/** A memory file's text: fixed times, so that two machines writing one content write one etag. */
export function memoryText(name: string, content: string, type: MemoryType = 'project'): string {
  return serializeMemory({
    name,
    description: `about ${name}`,
    type,
    created: '2026-12-01T00:00:00.000Z',
    updated: '2026-12-01T00:00:00.000Z',
    content,
  });
}

/** What a test may set of a machine's sync: its clock, and how long a just-written file waits. */
export interface MachineOptions {
  clock?: () => number;
  quietMs?: number;
}

function open(root: string, name: string, id: string, options: MachineOptions): Machine {
  const base = join(root, name);
  const projectsDir = join(base, 'projects');
  const stateDir = join(base, 'state');
  const syncDir = join(base, 'sync');
  for (const dir of [join(projectsDir, PROJECT), stateDir, syncDir]) mkdirSync(dir, { recursive: true });
  const log = fakeLogger();
  const store = openStore(join(stateDir, 'memd.sqlite'), log);
  const sync = createMemdirSync({
    db: store.db,
    projectsDir,
    stateDir,
    syncDir,
    deviceId: id,
    log,
    clock: options.clock ?? (() => Date.now()),
    quietMs: options.quietMs ?? 0,
  });
  const path = (memory: string, scope: MemoryScope = 'private') =>
    `${join(projectsDir, PROJECT, 'memory', ...(scope === 'team' ? ['team'] : []), memory)}.md`;
  const machine: Machine = {
    name,
    id,
    projectsDir,
    stateDir,
    syncDir,
    log,
    store,
    sync,
    path,
    write(memory, content, options = {}) {
      const file = path(memory, options.scope);
      mkdirSync(join(file, '..'), { recursive: true });
      const text = memoryText(memory, content, options.type);
      writeFileSync(file, text);
      return text;
    },
    read: (memory, scope) => (existsSync(path(memory, scope)) ? readFileSync(path(memory, scope), 'utf8') : null),
    remove: (memory, scope) => rmSync(path(memory, scope)),
    async scan(...others) {
      await sync.publish();
      await sync.receive(others.map((other) => other.id));
    },
    restart() {
      store.close();
      return open(root, name, id, options);
    },
    close: () => store.close(),
  };
  return machine;
}

export function machine(root: string, name: string, options: MachineOptions = {}): Machine {
  return open(root, name, randomBytes(8).toString('hex'), options);
}

/** The sync engine: `from`'s subtree, as it is now, into `to`'s copy of the sync folder. */
export function carry(from: Machine, to: Machine): void {
  mkdirSync(join(to.syncDir, from.id), { recursive: true });
  execFileSync('/usr/bin/rsync', [
    '-a',
    '--delete',
    `${join(from.syncDir, from.id)}/`,
    `${join(to.syncDir, from.id)}/`,
  ]);
}

/** Every machine's subtree to every other. */
export function carryAll(...machines: Machine[]): void {
  for (const from of machines) for (const to of machines) if (from !== to) carry(from, to);
}

export const manifestPath = (holder: Machine, of: Machine): string =>
  join(holder.syncDir, of.id, 'memdir', 'manifest.json');

/**
 * A temp root per test for machines made in it: `start` makes (and tracks) machines by name,
 * `track` one made with options; all are closed and the root removed after the test.
 */
export function machinesPerTest(prefix: string): {
  root(): string;
  start(...names: string[]): Machine[];
  track(made: Machine): Machine;
  /** No longer closed after the test (the test closed or replaced it). */
  untrack(made: Machine): void;
} {
  let root = '';
  let machines: Machine[] = [];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
    machines = [];
  });
  afterEach(() => {
    for (const open of machines) open.close();
    rmSync(root, { recursive: true, force: true });
  });
  const track = (made: Machine) => {
    machines.push(made);
    return made;
  };
  return {
    root: () => root,
    start: (...names) => names.map((name) => track(machine(root, name))),
    track,
    untrack: (made) => void machines.splice(machines.indexOf(made), 1),
  };
}
