/**
 * Every domain's method table, in the order the dispatcher serves them and `daemon.version` lists
 * them. The daemon's own methods (daemon.ts) are added after the server and shutdown they report on.
 */
import type { MemdPaths } from '../../../shared/paths.js';
import type { ThresholdEnv } from '../../../shared/transcript/thresholds.js';
import type { ArchiveService } from '../../archive/service.js';
import type { CompactionService } from '../../compaction/service.js';
import type { ExportService } from '../../export/service.js';
import type { ExtractionService } from '../../extraction/service.js';
import type { HookService } from '../../handoff/hooks.js';
import type { HandoffService } from '../../handoff/service.js';
import type { MemdirStore } from '../../memory/memdir/store.js';
import type { RewindService } from '../../memory/rewind/service.js';
import type { RecallService } from '../../recall/service.js';
import type { SearchService } from '../../search/service.js';
import type { SessionReports } from '../../sessions/reports.js';
import type { SessionService } from '../../sessions/service.js';
import type { MemdirSync } from '../../sync/memdir-sync.js';
import type { SyncService } from '../../sync/service.js';
import type { UsageService } from '../../usage/service.js';
import type { UsageStatus } from '../../usage/status.js';
import type { MethodHandler } from '../dispatch.js';
import { archiveMethods } from './archive.js';
import { compactionMethods } from './compaction.js';
import { eventMethods } from './events.js';
import { exportMethods } from './export.js';
import { extractionMethods } from './extraction.js';
import { handoffMethods } from './handoff.js';
import { historyMethods } from './history.js';
import { hookMethods } from './hooks.js';
import { memdirMethods } from './memdir.js';
import { memdirSyncMethods } from './memdir-sync.js';
import { recallMethods } from './recall.js';
import { rewindMethods } from './rewind.js';
import { searchMethods } from './search.js';
import { sessionMethods } from './sessions.js';
import { syncMethods } from './sync.js';
import { usageMethods } from './usage.js';

/** The parts the tables call: main.ts's parts record. */
export interface MethodParts {
  paths: Pick<MemdPaths, 'projectsDir' | 'claudeRoot'>;
  thresholdEnv: ThresholdEnv;
  sessions: SessionService;
  reports: SessionReports;
  compaction: CompactionService;
  extraction: ExtractionService;
  memory: { memdir: MemdirStore; rewind: RewindService };
  handoff: { handoff: HandoffService; hooks: HookService };
  search: SearchService;
  recall: RecallService;
  usage: UsageService;
  usageStatus: UsageStatus;
  archive: ArchiveService;
  sync: SyncService & { memdir: MemdirSync };
  exports: ExportService;
}

export function methodTables(parts: MethodParts): MethodHandler[] {
  const { paths, sessions, memory, handoff } = parts;
  return [
    ...eventMethods(),
    ...sessionMethods(sessions, parts.thresholdEnv, parts.archive, parts.reports, handoff.hooks),
    ...compactionMethods(parts.compaction, paths.projectsDir),
    ...extractionMethods(parts.extraction),
    ...memdirMethods(memory.memdir),
    ...hookMethods(handoff.hooks, sessions, parts.extraction),
    ...handoffMethods(handoff.handoff),
    ...historyMethods({ claudeRoot: paths.claudeRoot }),
    ...rewindMethods(memory.rewind),
    ...searchMethods(parts.search),
    ...recallMethods(parts.recall),
    ...usageMethods(parts.usage, parts.usageStatus),
    ...archiveMethods(parts.archive, parts.sync),
    ...syncMethods(parts.sync),
    ...memdirSyncMethods(parts.sync.memdir),
    ...exportMethods(parts.exports),
  ];
}
