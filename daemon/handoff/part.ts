/**
 * Handoffs and the hooks service as a part of the daemon. Both read one record of which handoffs
 * memd wrote (issue 27): handoff.read and SessionStart alike.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { MemdPaths } from '../../shared/paths.js';
import type { ModelAccess } from '../llm/backends.js';
import { createSpendBook } from '../llm/spend.js';
import type { Logger } from '../log/logger.js';
import type { MemdirStore } from '../memory/memdir/store.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createHandoffBindings } from './bindings.js';
import { createHookRecords } from './hook-records.js';
import { createHookService, type HookService } from './hooks.js';
import { createHandoffService, type HandoffService } from './service.js';

export interface HandoffPartDeps {
  db: Database.Database;
  paths: Pick<MemdPaths, 'projectsDir' | 'claudeRoot' | 'stateDir'>;
  config: Pick<MemdConfig, 'handoffModel' | 'gitTimeoutMs'>;
  log: Logger;
  clock: () => number;
  access: ModelAccess | null;
  transcripts: Transcripts;
  memory: { memdir: MemdirStore };
}

export interface HandoffPart {
  handoff: HandoffService;
  hooks: HookService;
}

export function buildHandoff(deps: HandoffPartDeps): HandoffPart {
  const { paths, log, clock, transcripts } = deps;
  // The narrator's calls spend on the user's key: the ledger extraction's spend is in (issue 32).
  const spend = createSpendBook(deps.db);
  const bindings = createHandoffBindings({ stateDir: paths.stateDir, clock, log });
  const hooks = createHookService({
    transcripts,
    records: createHookRecords(deps.db),
    memdir: deps.memory.memdir,
    log,
    clock,
    bindings,
  });
  const handoff = createHandoffService({
    transcripts,
    projectsDir: paths.projectsDir,
    claudeRoot: paths.claudeRoot,
    log,
    clock,
    anthropic: deps.access && {
      ...deps.access,
      model: deps.config.handoffModel,
      record: (call) => spend.record(call, clock()),
    },
    git: { timeoutMs: deps.config.gitTimeoutMs },
    bindings,
  });
  return { handoff, hooks };
}
