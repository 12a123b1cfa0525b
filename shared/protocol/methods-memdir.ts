/** The `memdir.*` methods (methods.ts spreads them into Methods): project and team memory files. */

import type {
  MemdirConflictsResult,
  MemdirDeleteResult,
  MemdirListResult,
  MemdirReadResult,
  MemdirResolveResult,
  MemdirWriteResult,
} from './memdir.js';
import { method, projectParam as project } from './method.js';
import { nullable, object, oneOf, optional, str } from './schema.js';

const scope = optional(oneOf('private', 'team'));
const memoryType = oneOf('user', 'feedback', 'project', 'reference');
/** Checked for safety by the daemon (PathRejected names the reason), not here. */
const memoryName = str({ minLength: 1, maxLength: 4_096 });

export const MEMDIR_METHODS = {
  memdirList: method<MemdirListResult>()('memdir.list', object({ project, scope })),
  memdirRead: method<MemdirReadResult>()('memdir.read', object({ project, scope, name: memoryName })),
  memdirWrite: method<MemdirWriteResult>()(
    'memdir.write',
    object({
      project,
      scope,
      name: memoryName,
      type: memoryType,
      description: optional(str({ maxLength: 1_000 })),
      content: str(),
      // The etag the caller last read; null: the memory must not exist yet. A mismatch is Conflict.
      ifMatch: optional(nullable(str({ minLength: 1 }))),
    }),
  ),
  memdirDelete: method<MemdirDeleteResult>()(
    'memdir.delete',
    object({ project, scope, name: memoryName, ifMatch: optional(str({ minLength: 1 })) }),
  ),
  // Issue 35 (additions): memories changed on two machines from one version, and choosing one.
  memdirConflicts: method<MemdirConflictsResult>()('memdir.conflicts', object({ project: optional(project) })),
  memdirResolve: method<MemdirResolveResult>()(
    'memdir.resolve',
    object({
      project,
      scope,
      name: memoryName,
      keep: oneOf('local', 'theirs'),
      // The other machine's device id: needed only when the memory conflicts with several.
      device: optional(str({ minLength: 1, maxLength: 64 })),
    }),
  ),
};
