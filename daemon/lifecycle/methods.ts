/** `daemon.*` methods: version handshake, status, shutdown. */
import { Methods } from '../../shared/protocol/methods.js';
import { PROTOCOL_VERSION, type DaemonPaths, type DaemonStatus, type DatabaseStatus } from '../../shared/protocol/results.js';
import { handle, type MethodHandler } from '../rpc/dispatch.js';
import type { RpcStats } from '../rpc/server.js';

export interface DaemonInfo {
  version: string;
  startedAt: Date;
  socketActivated: boolean;
  paths: DaemonPaths;
  database: DatabaseStatus;
  rpcStats(): RpcStats;
  /** Capability names beside the method list (features a client may probe for). */
  features: readonly string[];
  methodNames(): readonly string[];
  requestShutdown(reason: string): void;
  clock(): number;
}

export function daemonMethods(info: DaemonInfo): MethodHandler[] {
  return [
    handle(Methods.daemonVersion, () => ({
      name: 'memd' as const,
      version: info.version,
      protocol: PROTOCOL_VERSION,
      capabilities: [...info.methodNames(), ...info.features],
    })),
    handle(Methods.daemonStatus, (): DaemonStatus => {
      const memory = process.memoryUsage();
      return {
        pid: process.pid,
        version: info.version,
        protocol: PROTOCOL_VERSION,
        startedAt: info.startedAt.toISOString(),
        uptimeMs: info.clock() - info.startedAt.getTime(),
        socketActivated: info.socketActivated,
        paths: info.paths,
        counts: info.rpcStats(),
        memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
        database: info.database,
      };
    }),
    handle(Methods.daemonShutdown, (params) => {
      // Answer first; the shutdown starts once this response is on its way.
      setImmediate(() => info.requestShutdown(params.reason ?? 'daemon.shutdown request'));
      return { ok: true as const };
    }),
  ];
}
