/** What the user keeps, as a part of the daemon: project and team memory (memdir) and rewind. The prompt history needs no part: its methods read `~/.claude` directly. */
import type { MemdPaths } from '../../shared/paths.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createMemdirStore, type MemdirStore } from './memdir/store.js';
import { createRewindService, type RewindService } from './rewind/service.js';

export interface MemoryPartDeps {
  paths: Pick<MemdPaths, 'projectsDir' | 'claudeRoot' | 'stateDir'>;
  clock: () => number;
  transcripts: Transcripts;
}

export interface MemoryPart {
  memdir: MemdirStore;
  rewind: RewindService;
}

export function buildMemory(deps: MemoryPartDeps): MemoryPart {
  const { paths, clock } = deps;
  return {
    memdir: createMemdirStore({ projectsDir: paths.projectsDir, clock }),
    rewind: createRewindService({
      transcripts: deps.transcripts,
      claudeRoot: paths.claudeRoot,
      stateDir: paths.stateDir,
      clock,
    }),
  };
}
