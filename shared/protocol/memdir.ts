/**
 * Results of the memdir.* methods: project and team memory files (DESIGN.md §2 and §6). A memory
 * is one markdown file `<name>.md` with frontmatter under `<projects>/<project>/memory/` (scope
 * `private`) or `memory/team/` (scope `team`); `MEMORY.md` in the same dir indexes them.
 */
import { arrayOf, bool, looseObject, nullable, num, oneOf, type Schema, str } from './schema.js';

export type MemoryScope = 'private' | 'team';
export type MemoryType = 'user' | 'feedback' | 'project' | 'reference';

export interface MemoryFileInfo {
  /** The memory's name: its path under the scope's dir, without `.md` (`/` separates nested dirs). */
  name: string;
  scope: MemoryScope;
  type: MemoryType;
  description: string;
  /** ISO times from the frontmatter. */
  created: string;
  updated: string;
  /** Changes whenever the file's bytes change; `ifMatch` compares against it. */
  etag: string;
  path: string;
  bytes: number;
}

export interface MemdirIndexInfo {
  path: string;
  lines: number;
  chars: number;
  /** Memories left out of the index to keep it within its limits (oldest first). */
  dropped: number;
  /** False when MEMORY.md differs from what the files make (edited by hand); the next write rebuilds it. */
  inStep: boolean;
}

export interface MemdirListResult {
  /** The project folder name (`-home-user-src-app`). */
  project: string;
  scope: MemoryScope;
  dir: string;
  /** Most recently updated first. */
  memories: MemoryFileInfo[];
  index: MemdirIndexInfo;
  /** Files in the dir that are not valid memories (no or broken frontmatter), with why. */
  skipped: { path: string; reason: string }[];
}

export interface MemdirReadResult extends MemoryFileInfo {
  /** The body after the frontmatter. */
  content: string;
}

export interface MemdirWriteResult extends MemoryFileInfo {
  /** True when the write made a new memory, false when it replaced one. */
  isNew: boolean;
  index: MemdirIndexInfo;
}

export interface MemdirDeleteResult {
  deleted: boolean;
  index: MemdirIndexInfo;
}

/**
 * A memory changed on this machine and on another from one version (issue 35, memdir sync): both
 * versions are kept, this machine's in place, the other's in memd's state dir, until one is chosen
 * (`memdir.resolve`) or chosen on another machine.
 */
export interface MemdirConflict {
  project: string;
  scope: MemoryScope;
  name: string;
  /** The memory's file on this machine, left as it is. */
  path: string;
  /** This machine's version; null: deleted here. */
  localEtag: string | null;
  /** The other machine's device id, and its name as it calls itself (null when not known yet). */
  device: string;
  deviceName: string | null;
  /** The other machine's version; null: deleted there. */
  theirEtag: string | null;
  /** Where the other machine's version is kept (null when it deleted the memory). */
  theirPath: string | null;
  /** The version the other machine's was made from. */
  base: string | null;
  /** When this machine found the conflict (its own clock, ISO). */
  foundAt: string;
}

export interface MemdirConflictsResult {
  /** This machine's device id. */
  device: string;
  /** False when no sync folder is set: nothing is published or received, but earlier conflicts are listed. */
  syncing: boolean;
  /** Oldest first. */
  conflicts: MemdirConflict[];
}

export type MemdirKeep = 'local' | 'theirs';

export interface MemdirResolveResult {
  project: string;
  scope: MemoryScope;
  name: string;
  /** The other machine of the conflict resolved. */
  device: string;
  kept: MemdirKeep;
  /** The memory's etag here now; null: it is deleted. */
  etag: string | null;
  /** Conflicts of the same memory with other machines still open. */
  remaining: number;
}

const scopeSchema = oneOf('private', 'team');

export const memdirConflictSchema: Schema<MemdirConflict> = looseObject({
  project: str(),
  scope: scopeSchema,
  name: str(),
  path: str(),
  localEtag: nullable(str()),
  device: str(),
  deviceName: nullable(str()),
  theirEtag: nullable(str()),
  theirPath: nullable(str()),
  base: nullable(str()),
  foundAt: str(),
});

export const memdirConflictsResultSchema: Schema<MemdirConflictsResult> = looseObject({
  device: str(),
  syncing: bool(),
  conflicts: arrayOf(memdirConflictSchema),
});

export const memdirResolveResultSchema: Schema<MemdirResolveResult> = looseObject({
  project: str(),
  scope: scopeSchema,
  name: str(),
  device: str(),
  kept: oneOf('local', 'theirs'),
  etag: nullable(str()),
  remaining: num(),
});
