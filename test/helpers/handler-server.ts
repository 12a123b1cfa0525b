/**
 * A real RPC server on a real socket that serves only the handlers a test gives it (plus
 * daemon.version, to show the connection still serves): for answers no real method would make.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemdClient } from '../../client/index.js';
import { createBus } from '../../daemon/bus/bus.js';
import { createDispatcher, handle, type MethodHandler } from '../../daemon/rpc/dispatch.js';
import { createRpcServer } from '../../daemon/rpc/server.js';
import { Methods } from '../../shared/protocol/methods.js';
import { fakeLogger } from './fake-logger.js';

export interface HandlerServer {
  client: MemdClient;
  /** Closes the client, the server and its temp dir. */
  close(): Promise<void>;
}

export async function serveHandlers(handlers: readonly MethodHandler[]): Promise<HandlerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'memd-handlers-'));
  const socketPath = join(dir, 'memd.sock');
  const bus = createBus((error) => {
    throw error;
  });
  const version = handle(Methods.daemonVersion, () => ({
    name: 'memd' as const,
    version: '0.1.0',
    protocol: 1,
    capabilities: [],
  }));
  const dispatcher = createDispatcher([version, ...handlers], fakeLogger());
  const server = createRpcServer({
    dispatcher,
    bus,
    log: fakeLogger(),
    maxConnections: 10,
    limits: { idleMs: 60_000, frameMs: 10_000, stallMs: 30_000 },
    budget: { maxAnswerBytes: 128 * 1024 * 1024, maxHeavyRequests: 4 },
  });
  await server.listen({ kind: 'path', path: socketPath });
  const client = new MemdClient({ socketPath, autostart: false });
  return {
    client,
    async close() {
      client.close();
      await server.stopAccepting();
      server.closeConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
