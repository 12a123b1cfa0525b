/**
 * Results of the memdir.* methods: project and team memory files (DESIGN.md §2 and §6). A memory
 * is one markdown file `<name>.md` with frontmatter under `<projects>/<project>/memory/` (scope
 * `private`) or `memory/team/` (scope `team`); `MEMORY.md` in the same dir indexes them.
 */
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
