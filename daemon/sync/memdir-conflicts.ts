/**
 * The conflicts of memdir sync, listed and resolved (issue 35). Resolving writes the chosen version
 * here (through the memdir store, over the version this machine last saw, never blind) and gives it
 * a version that descends from both: the other machine then takes it as a fast-forward, and its own
 * record of the conflict closes itself.
 */

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, invalidParams, RpcError } from '../../shared/protocol/errors.js';
import type { MemdirConflict, MemdirKeep, MemdirResolveResult, MemoryScope } from '../../shared/protocol/memdir.js';
import { readTextIfPresent } from '../fs/read.js';
import { etagOf, MEMORY_DIR, projectFolder, TEAM_DIR } from '../memory/memdir/store.js';
import type { ConflictRow, MemoryRecord } from './memdir-book.js';
import { isKept, type SyncContext } from './memdir-context.js';
import { memoryKey } from './memdir-manifest.js';
import { bumpVersion, EMPTY_VERSION, mergeVersions } from './memdir-version.js';

/** How long a resolved conflict's row, and the other version it kept, stay: time to change one's mind. */
export const RESOLVED_KEEP_MS = 30 * 86_400_000;

export interface ResolveInput {
  project: string;
  scope?: MemoryScope;
  name: string;
  keep: MemdirKeep;
  device?: string;
}

export interface ConflictDesk {
  list(project?: string): MemdirConflict[];
  resolve(input: ResolveInput): Promise<MemdirResolveResult>;
  /** Resolved conflicts past RESOLVED_KEEP_MS removed, with the versions no other row keeps. */
  prune(): Promise<void>;
}

export function createConflictDesk(ctx: SyncContext): ConflictDesk {
  const { deps, book } = ctx;

  function shown(row: ConflictRow): MemdirConflict {
    const record = ctx.records.get(memoryKey(row));
    return {
      project: row.project,
      scope: row.scope,
      name: row.name,
      path: `${join(deps.projectsDir, row.project, MEMORY_DIR, ...(row.scope === 'team' ? [TEAM_DIR] : []), row.name)}.md`,
      localEtag: record === undefined ? row.localEtag : record.etag,
      device: row.device,
      deviceName: book.deviceName(row.device),
      theirEtag: row.theirEtag,
      theirPath: row.kept,
      base: row.theirBase,
      foundAt: new Date(row.foundAt).toISOString(),
    };
  }

  function pick(input: ResolveInput, project: string, scope: MemoryScope): ConflictRow {
    const open = book
      .openConflicts({ project, scope, name: input.name })
      .filter((row) => input.device === undefined || row.device === input.device);
    const [first, ...more] = open;
    if (first === undefined)
      throw new RpcError(
        ErrorCode.NotFound,
        'NotFound',
        `no open conflict for ${scope} memory ${input.name} of ${project}`,
      );
    if (more.length > 0)
      throw invalidParams(
        `memory ${input.name} conflicts with several machines (${open.map((row) => row.device).join(', ')}): name one with device`,
        { field: 'params.device', devices: open.map((row) => row.device) },
      );
    return first;
  }

  /** Their version written here over ours: their text, or their deletion. */
  async function takeTheirs(row: ConflictRow, record: MemoryRecord | undefined): Promise<void> {
    const ours = record?.etag ?? null;
    const { project, scope, name } = row;
    if (row.theirEtag === null) {
      if (ours !== null) await ctx.store.removeText({ project, scope, name, ifMatch: ours });
      return;
    }
    const text = row.kept === null ? null : await readTextIfPresent(row.kept);
    if (text === null || etagOf(text) !== row.theirEtag)
      throw new RpcError(
        ErrorCode.NotFound,
        'NotFound',
        `the other version of ${name} is no longer kept at ${row.kept}`,
        {
          path: row.kept,
        },
      );
    await ctx.store.putText({ project, scope, name, text, ifMatch: ours });
  }

  return {
    list(project) {
      const folder = project === undefined ? undefined : projectFolder(project);
      return book.openConflicts(folder === undefined ? {} : { project: folder }).map(shown);
    },

    async resolve(input) {
      const project = projectFolder(input.project);
      const scope = input.scope ?? 'private';
      const row = pick(input, project, scope);
      const record = ctx.records.get(memoryKey(row));
      if (input.keep === 'theirs') await takeTheirs(row, record);
      const ours = record?.etag ?? null;
      const counter = ctx.nextCounter();
      const next: MemoryRecord = {
        project,
        scope,
        name: row.name,
        etag: input.keep === 'theirs' ? row.theirEtag : ours,
        base: ours,
        version: bumpVersion(mergeVersions(record?.version ?? EMPTY_VERSION, row.theirVersion), deps.deviceId, counter),
        seq: counter,
        changedAt: deps.clock(),
      };
      ctx.putRecord(next);
      book.resolveConflict(row.id, input.keep, deps.clock());
      ctx.settle(next, 'merged');
      deps.log.info('memdir sync: a conflict was resolved', {
        project,
        scope,
        name: row.name,
        device: row.device,
        kept: input.keep,
      });
      return {
        project,
        scope,
        name: row.name,
        device: row.device,
        kept: input.keep,
        etag: next.etag,
        remaining: book.openConflicts({ project, scope, name: row.name }).length,
      };
    },

    async prune() {
      for (const path of book.pruneResolved(deps.clock() - RESOLVED_KEEP_MS)) {
        // Only what this module kept: a row is data, and data is not trusted to name what to remove.
        if (isKept(deps.stateDir, path)) await rm(path, { force: true });
      }
    },
  };
}
