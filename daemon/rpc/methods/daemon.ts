/** `daemon.*` methods: version handshake, status, shutdown. */
import { Methods } from '../../../shared/protocol/methods.js';
import type { ArchiveStatus } from '../../../shared/protocol/archive.js';
import type { SearchStatus } from '../../../shared/protocol/search.js';
import { PROTOCOL_VERSION, type DaemonPaths, type DaemonStatus, type DatabaseStatus, type LoopStatus } from '../../../shared/protocol/daemon.js';
import type { CompactionStatus } from '../../../shared/protocol/compaction.js';
import type { ExtractionStatus } from '../../../shared/protocol/memory.js';
import type { IngestStatus } from '../../../shared/protocol/ingest.js';
import { handle, type MethodHandler } from '../dispatch.js';
import type { RpcStats } from '../server.js';

export interface DaemonInfo {
  version: string;
  startedAt: Date;
  socketActivated: boolean;
  paths: DaemonPaths;
  database: DatabaseStatus;
  rpcStats(): RpcStats;
  ingest(): IngestStatus;
  compaction(): CompactionStatus;
  extraction(): ExtractionStatus;
  archive(): ArchiveStatus;
  search(): SearchStatus;
  /** The event loop's worst delays since memd started serving. */
  loop(): LoopStatus;
  /** Capability names beside the method list (features a client may probe for). */
  features: readonly string[];
  methodNames(): readonly string[];
  requestShutdown(reason: string): void;
  /** How long the shutdown may take at most (told to the caller of daemon.shutdown). */
  shutdownDeadlineMs: number;
  clock(): number;
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

export function daemonMethods(info: DaemonInfo): MethodHandler[] {
  const memory = memorySampler(info.clock);
  return [
    handle(Methods.daemonVersion, () => ({
      name: 'memd' as const,
      version: info.version,
      protocol: PROTOCOL_VERSION,
      capabilities: [...info.methodNames(), ...info.features],
    })),
    handle(Methods.daemonStatus, (): DaemonStatus => {
      return {
        pid: process.pid,
        version: info.version,
        protocol: PROTOCOL_VERSION,
        startedAt: info.startedAt.toISOString(),
        uptimeMs: info.clock() - info.startedAt.getTime(),
        socketActivated: info.socketActivated,
        paths: info.paths,
        counts: info.rpcStats(),
        memory: memory(),
        database: info.database,
        ingest: info.ingest(),
        compaction: info.compaction(),
        extraction: info.extraction(),
        archive: info.archive(),
        search: info.search(),
        loop: info.loop(),
      };
    }),
    handle(Methods.daemonShutdown, (params) => {
      // Answer first; the shutdown starts once this response is on its way.
      setImmediate(() => info.requestShutdown(params.reason ?? 'daemon.shutdown request'));
      return { ok: true as const, deadlineMs: info.shutdownDeadlineMs };
    }),
  ];
}
