/** `daemon.*` methods: version handshake, status, shutdown. */
import type { MemdConfig } from '../../../shared/config.js';
import type { MemdPaths } from '../../../shared/paths.js';
import type { ArchiveStatus, DeletionsStatus } from '../../../shared/protocol/archive.js';
import type { CompactionStatus } from '../../../shared/protocol/compaction.js';
import {
  type DaemonPaths,
  type DaemonStatus,
  type DatabaseStatus,
  type LoopStatus,
  PROTOCOL_VERSION,
} from '../../../shared/protocol/daemon.js';
import type { IngestStatus } from '../../../shared/protocol/ingest.js';
import type { ExtractionStatus } from '../../../shared/protocol/memory.js';
import { Methods } from '../../../shared/protocol/methods.js';
import type { SearchStatus } from '../../../shared/protocol/search.js';
import { MEMD_VERSION } from '../../../shared/version.js';
import { handle, type MethodHandler } from '../dispatch.js';
import type { RpcStats } from '../server.js';

/** Feature flags reported by daemon.version beside the method names (features a client may probe for). */
export const FEATURES = ['events', 'cancel'] as const;

/** What the daemon's methods report on: main.ts's parts record, with the server and the shutdown. */
export interface DaemonParts {
  startedAt: Date;
  clock(): number;
  /** The systemd-activated socket's descriptor, if any. */
  activatedFd: number | undefined;
  paths: Pick<MemdPaths, 'socketPath' | 'stateDir' | 'dbPath' | 'configPath' | 'projectsDir'>;
  log: { readonly file: string | null };
  config: Pick<MemdConfig, 'shutdownDeadlineMs'>;
  store: { readonly status: DatabaseStatus };
  rpc: { server: { stats(): RpcStats }; dispatcher: { readonly methods: readonly string[] } };
  ingest: { ingestor: { status(): IngestStatus } };
  compaction: { status(): CompactionStatus };
  extraction: { status(): ExtractionStatus };
  archive: { status(): ArchiveStatus; deletionsStatus(): DeletionsStatus };
  search: { status(): SearchStatus };
  /** The event loop's worst delays since memd started serving. */
  loop: { status(): LoopStatus };
  shutdown(reason: string): Promise<void>;
}

/**
 * process.memoryUsage() reads /proc on every call and dominated a busy daemon.status profile;
 * a figure up to this old is exact enough for a status line.
 */
const MEMORY_SAMPLE_MAX_AGE_MS = 250;

function memorySampler(clock: () => number): () => DaemonStatus['memory'] {
  let sampledAt = -Infinity;
  let sample: DaemonStatus['memory'] = { rssBytes: 0, heapUsedBytes: 0 };
  return () => {
    const now = clock();
    if (now - sampledAt >= MEMORY_SAMPLE_MAX_AGE_MS) {
      const usage = process.memoryUsage();
      sample = { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed };
      sampledAt = now;
    }
    return sample;
  };
}

export function daemonMethods(parts: DaemonParts): MethodHandler[] {
  const { paths, startedAt } = parts;
  const memory = memorySampler(parts.clock);
  const daemonPaths: DaemonPaths = {
    socket: paths.socketPath,
    stateDir: paths.stateDir,
    database: paths.dbPath,
    log: parts.log.file,
    config: paths.configPath,
    projectsDir: paths.projectsDir,
  };
  return [
    handle(Methods.daemonVersion, () => ({
      name: 'memd' as const,
      version: MEMD_VERSION,
      protocol: PROTOCOL_VERSION,
      capabilities: [...parts.rpc.dispatcher.methods, ...FEATURES],
    })),
    handle(Methods.daemonStatus, (): DaemonStatus => {
      return {
        pid: process.pid,
        version: MEMD_VERSION,
        protocol: PROTOCOL_VERSION,
        startedAt: startedAt.toISOString(),
        uptimeMs: parts.clock() - startedAt.getTime(),
        socketActivated: parts.activatedFd !== undefined,
        paths: daemonPaths,
        counts: parts.rpc.server.stats(),
        memory: memory(),
        database: parts.store.status,
        ingest: parts.ingest.ingestor.status(),
        compaction: parts.compaction.status(),
        extraction: parts.extraction.status(),
        archive: parts.archive.status(),
        deletions: parts.archive.deletionsStatus(),
        search: parts.search.status(),
        loop: parts.loop.status(),
      };
    }),
    handle(Methods.daemonShutdown, (params) => {
      // Answer first; the shutdown starts once this response is on its way.
      setImmediate(() => void parts.shutdown(params.reason ?? 'daemon.shutdown request'));
      return { ok: true as const, deadlineMs: parts.config.shutdownDeadlineMs };
    }),
  ];
}
