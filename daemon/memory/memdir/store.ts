/**
 * Project and team memory (DESIGN.md §2 and §6): one markdown file per memory under
 * `<projects>/<project>/memory/` (scope `private`) or `memory/team/` (scope `team`), and the
 * `MEMORY.md` index beside them. Every change runs under the dir's lock (proper-lockfile, so other
 * processes that take it are kept out too) and rebuilds the index from the files themselves, so
 * the index always matches them. Paths go through both passes of safe-path.ts on every operation;
 * `ifMatch` (the etag a caller read) turns a lost update into `Conflict`.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { type MemoryDocument, parseMemory, serializeMemory } from '../../../shared/memdir/frontmatter.js';
import { type BuiltIndex, buildIndex, INDEX_FILE, type IndexedMemory } from '../../../shared/memdir/index-file.js';
import { sanitizeProjectDirName } from '../../../shared/paths.js';
import { ErrorCode, invalidParams, RpcError } from '../../../shared/protocol/errors.js';
import type {
  MemdirDeleteResult,
  MemdirIndexInfo,
  MemdirListResult,
  MemdirReadResult,
  MemdirWriteResult,
  MemoryFileInfo,
  MemoryScope,
  MemoryType,
} from '../../../shared/protocol/memdir.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { readTextIfPresent } from '../../fs/read.js';
import { withDirLock } from './dir-lock.js';
import { readInside, realRoot, removeInside, writeInside } from './safe-path.js';

/** The dir of memories under a project folder, as Claude Code names it. */
export const MEMORY_DIR = 'memory';
/** Team memory's subdir of the memory dir. */
export const TEAM_DIR = 'team';
const MEMORY_EXT = '.md';
/** Hex digits of the content hash in an etag: collisions are out of reach at this length. */
const ETAG_HEX = 32;

export interface MemdirStoreDeps {
  projectsDir: string;
  clock: () => number;
}

export interface WriteInput {
  project: string;
  scope?: MemoryScope;
  name: string;
  type: MemoryType;
  description?: string;
  content: string;
  /** The etag last read; null: the memory must not exist yet. */
  ifMatch?: string | null;
}

export interface DeleteInput {
  project: string;
  scope?: MemoryScope;
  name: string;
  ifMatch?: string;
}

/** A memory's whole text as another machine wrote it (sync, issue 35): kept byte for byte, so its etag is the same here. */
export interface PutTextInput {
  project: string;
  scope: MemoryScope;
  name: string;
  text: string;
  /** The etag of the version the caller saw here; null: there was none. Required: sync never writes blind. */
  ifMatch: string | null;
}

export interface MemdirStore {
  list(project: string, scope?: MemoryScope): Promise<MemdirListResult>;
  read(project: string, scope: MemoryScope | undefined, name: string): Promise<MemdirReadResult>;
  write(input: WriteInput): Promise<MemdirWriteResult>;
  delete(input: DeleteInput): Promise<MemdirDeleteResult>;
  /**
   * Sync's write: the text must be a memory file (and not a user memory in team scope, as
   * `write` refuses), the name passes both checks, and `ifMatch` must hold; the index is rebuilt.
   */
  putText(input: PutTextInput): Promise<{ etag: string; path: string }>;
  /** Sync's delete: only the version `ifMatch` names; false when the memory was not there. */
  removeText(input: Omit<PutTextInput, 'text' | 'ifMatch'> & { ifMatch: string }): Promise<boolean>;
}

export const etagOf = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex').slice(0, ETAG_HEX);

/** A project folder name (only what Claude Code's sanitizing leaves) or an absolute cwd. */
export function projectFolder(project: string): string {
  if (project.startsWith('/')) return sanitizeProjectDirName(project);
  if (!/^[A-Za-z0-9-]+$/.test(project)) {
    throw new RpcError(
      ErrorCode.PathRejected,
      'PathRejected',
      `project must be a project folder name (letters, digits and -) or an absolute path, got ${JSON.stringify(project.slice(0, 200))}`,
      {
        reason: 'project',
      },
    );
  }
  return project;
}

interface Located {
  folder: string;
  scope: MemoryScope;
  /** The scope's dir, symlinks resolved. */
  dir: string;
  /** False before the first memory of the scope is written. */
  exists: boolean;
}

interface ScannedMemory {
  name: string;
  path: string;
  bytes: number;
  text: string;
  memory: MemoryDocument;
}

/** Why a text may not be written as a memory of `scope`, or null when it may: what `write` holds its input to. */
export function memoryTextProblem(text: string, scope: MemoryScope): string | null {
  const parsed = parseMemory(text);
  if (!parsed.ok) return `not a memory file: ${parsed.reason}`;
  // User memories describe the person: they stay private (Claude Code's rule).
  if (parsed.memory.type === 'user' && scope === 'team') return 'a user memory is private: it cannot be team memory';
  return null;
}

export function createMemdirStore(deps: MemdirStoreDeps): MemdirStore {
  const iso = () => new Date(deps.clock()).toISOString();

  async function locate(project: string, scope: MemoryScope = 'private', create = false): Promise<Located> {
    const folder = projectFolder(project);
    const projectDir = join(deps.projectsDir, folder);
    const found = await stat(projectDir).catch(() => null);
    if (found === null || !found.isDirectory())
      throw new RpcError(ErrorCode.NotFound, 'NotFound', `no project folder ${folder} under ${deps.projectsDir}`);
    const dir = scope === 'team' ? join(projectDir, MEMORY_DIR, TEAM_DIR) : join(projectDir, MEMORY_DIR);
    if (create) await mkdir(dir, { recursive: true, mode: 0o700 });
    else if ((await lstat(dir).catch(() => null)) === null) return { folder, scope, dir, exists: false };
    return { folder, scope, dir: await realRoot(dir), exists: true };
  }

  function info(located: Located, scanned: Omit<ScannedMemory, 'memory'> & { memory: MemoryDocument }): MemoryFileInfo {
    const { memory } = scanned;
    return {
      name: scanned.name,
      scope: located.scope,
      type: memory.type,
      description: memory.description,
      created: memory.created,
      updated: memory.updated,
      etag: etagOf(scanned.text),
      path: scanned.path,
      bytes: scanned.bytes,
    };
  }

  /** Every memory file of the scope (team/ is its own scope), never following a link. */
  async function scan(
    located: Located,
  ): Promise<{ memories: ScannedMemory[]; skipped: { path: string; reason: string }[] }> {
    const memories: ScannedMemory[] = [];
    const skipped: { path: string; reason: string }[] = [];
    if (!located.exists) return { memories, skipped };
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      for (const entry of entries) {
        const path = join(dir, entry.name);
        // Locks, temp files and anything hidden are memd's or the user's own, not memories.
        if (entry.name.startsWith('.')) continue;
        if (
          dir === located.dir &&
          (entry.name === INDEX_FILE || (located.scope === 'private' && entry.name === TEAM_DIR))
        )
          continue;
        if (entry.isSymbolicLink()) {
          skipped.push({ path, reason: 'a symbolic link (not followed)' });
        } else if (entry.isDirectory()) {
          await walk(path);
        } else if (entry.isFile() && entry.name.endsWith(MEMORY_EXT)) {
          const name = relative(located.dir, path).slice(0, -MEMORY_EXT.length).split(sep).join('/');
          const text = await readInside(located.dir, name, { scope: located.scope }).catch((error: unknown) => {
            skipped.push({ path, reason: (error as Error).message });
            return null;
          });
          if (text === null) continue;
          const parsed = parseMemory(text);
          if (parsed.ok) memories.push({ name, path, bytes: Buffer.byteLength(text), text, memory: parsed.memory });
          else skipped.push({ path, reason: parsed.reason });
        }
      }
    };
    await walk(located.dir);
    return { memories, skipped };
  }

  const indexOf = (memories: readonly ScannedMemory[]): BuiltIndex =>
    buildIndex(
      memories.map(
        (scanned): IndexedMemory => ({
          name: scanned.name,
          description: scanned.memory.description,
          updated: scanned.memory.updated,
        }),
      ),
    );

  /** Under the lock: MEMORY.md rebuilt from the files. */
  async function reindex(located: Located): Promise<MemdirIndexInfo> {
    const built = indexOf((await scan(located)).memories);
    const path = join(located.dir, INDEX_FILE);
    // A link put in the index's place is replaced by the rename, never written through.
    await writeFileAtomic(path, built.text);
    return { path, lines: built.lines, chars: built.chars, dropped: built.dropped, inStep: true };
  }

  /** The index the files make, and whether MEMORY.md on disk is that. */
  async function indexInfo(located: Located, memories: readonly ScannedMemory[]): Promise<MemdirIndexInfo> {
    const built = indexOf(memories);
    const path = join(located.dir, INDEX_FILE);
    // Only a plain file counts: a link in its place is not followed.
    const found = await lstat(path).catch(() => null);
    const onDisk = found?.isFile() === true ? ((await readTextIfPresent(path)) ?? '') : '';
    return { path, lines: built.lines, chars: built.chars, dropped: built.dropped, inStep: onDisk === built.text };
  }

  async function current(located: Located, name: string): Promise<ScannedMemory | null> {
    const text = await readInside(located.dir, name, { scope: located.scope });
    if (text === null) return null;
    const parsed = parseMemory(text);
    const path = join(located.dir, `${name}${MEMORY_EXT}`);
    if (!parsed.ok)
      throw new RpcError(ErrorCode.Conflict, 'InvalidMemoryFile', `${path} is not a memory file: ${parsed.reason}`, {
        path,
        reason: parsed.reason,
      });
    return { name, path, bytes: Buffer.byteLength(text), text, memory: parsed.memory };
  }

  function checkMatch(existing: ScannedMemory | null, ifMatch: string | null | undefined, name: string): void {
    if (ifMatch === undefined) return;
    const etag = existing === null ? null : etagOf(existing.text);
    if (ifMatch === null ? etag === null : etag === ifMatch) return;
    const what =
      etag === null ? 'does not exist' : ifMatch === null ? 'exists already' : 'has changed since it was read';
    throw new RpcError(ErrorCode.Conflict, 'Conflict', `memory ${name} ${what}`, { etag });
  }

  return {
    async list(project, scope) {
      const located = await locate(project, scope);
      const { memories, skipped } = await scan(located);
      memories.sort((a, b) =>
        a.memory.updated === b.memory.updated
          ? a.name.localeCompare(b.name)
          : a.memory.updated < b.memory.updated
            ? 1
            : -1,
      );
      return {
        project: located.folder,
        scope: located.scope,
        dir: located.dir,
        memories: memories.map((scanned) => info(located, scanned)),
        index: await indexInfo(located, memories),
        skipped,
      };
    },

    async read(project, scope, name) {
      const located = await locate(project, scope);
      const found = located.exists ? await current(located, name) : null;
      if (found === null) throw new RpcError(ErrorCode.NotFound, 'NotFound', `no memory ${name} in ${located.dir}`);
      return { ...info(located, found), content: found.memory.content };
    },

    async write(input) {
      const scope = input.scope ?? 'private';
      // User memories describe the person: they stay private (Claude Code's rule).
      if (input.type === 'user' && scope === 'team')
        throw invalidParams('a user memory is private: it cannot be written to team memory', { field: 'params.type' });
      const located = await locate(input.project, scope, true);
      return withDirLock(located.dir, async () => {
        const existing = await current(located, input.name);
        checkMatch(existing, input.ifMatch, input.name);
        const now = iso();
        const memory: MemoryDocument = {
          name: input.name,
          description: input.description ?? existing?.memory.description ?? '',
          type: input.type,
          created: existing?.memory.created ?? now,
          updated: now,
          content: input.content,
        };
        const text = serializeMemory(memory);
        const path = await writeInside(located.dir, input.name, text, { scope: located.scope });
        const index = await reindex(located);
        return {
          ...info(located, { name: input.name, path, bytes: Buffer.byteLength(text), text, memory }),
          isNew: existing === null,
          index,
        };
      });
    },

    async delete(input) {
      const located = await locate(input.project, input.scope);
      if (!located.exists) {
        checkMatch(null, input.ifMatch, input.name);
        return { deleted: false, index: await indexInfo(located, []) };
      }
      return withDirLock(located.dir, async () => {
        const existing = await current(located, input.name).catch((error: unknown) => {
          // A file that is not a memory may still be deleted by its name.
          if (error instanceof RpcError && error.kind === 'InvalidMemoryFile') return null;
          throw error;
        });
        checkMatch(existing, input.ifMatch, input.name);
        const deleted = await removeInside(located.dir, input.name, { scope: located.scope });
        return { deleted, index: await reindex(located) };
      });
    },

    async putText(input) {
      const problem = memoryTextProblem(input.text, input.scope);
      if (problem !== null) throw invalidParams(`memory ${input.name}: ${problem}`, { field: 'text' });
      const located = await locate(input.project, input.scope, true);
      return withDirLock(located.dir, async () => {
        checkMatch(await current(located, input.name), input.ifMatch, input.name);
        const path = await writeInside(located.dir, input.name, input.text, { scope: located.scope });
        await reindex(located);
        return { etag: etagOf(input.text), path };
      });
    },

    async removeText(input) {
      const located = await locate(input.project, input.scope);
      if (!located.exists) return false;
      return withDirLock(located.dir, async () => {
        const existing = await current(located, input.name);
        if (existing === null) return false;
        checkMatch(existing, input.ifMatch, input.name);
        const deleted = await removeInside(located.dir, input.name, { scope: located.scope });
        await reindex(located);
        return deleted;
      });
    },
  };
}
