/**
 * Where memd serves: the socket systemd passed, or a path of its own. The file at a path of its own
 * is watched once listening (a daemon no client can reach shuts down) and removed on the way out
 * only while it is still the one this daemon made.
 */
import type { MemdConfig } from '../../shared/config.js';
import type { MemdPaths } from '../../shared/paths.js';
import type { Logger } from '../log/logger.js';
import { EXIT_FAILURE } from './bootstrap.js';
import type { Shutdown } from './shutdown.js';
import { type OwnSocket, ownSocket } from './socket-file.js';

/** The server's listen target (rpc/server.ts ListenTarget), spelled here: lifecycle does not import the transport. */
export type SocketTarget = { kind: 'path'; path: string } | { kind: 'fd'; fd: number };

export interface SocketPlace {
  readonly target: SocketTarget;
  /** True until listening on a path of our own, then while its file is ours; systemd owns an activated socket. */
  isOwn(): boolean;
  remove(): void;
  /** Called once listening: a path of our own is watched from then on. */
  listening(checkMs: number, onGone: (why: string) => void): void;
}

export function createSocketPlace(socketPath: string, activatedFd: number | undefined): SocketPlace {
  // Set once listening on a path of our own.
  let own: OwnSocket | undefined;
  return {
    target: activatedFd !== undefined ? { kind: 'fd', fd: activatedFd } : { kind: 'path', path: socketPath },
    isOwn: () => own?.isOwn() ?? true,
    remove: () => own?.remove(),
    listening(checkMs, onGone) {
      if (activatedFd !== undefined) return;
      own = ownSocket(socketPath);
      own.watch(checkMs, onGone);
    },
  };
}

export interface ListeningParts {
  paths: Pick<MemdPaths, 'socketPath'>;
  config: Pick<MemdConfig, 'socketCheckMs'>;
  log: Logger;
  rpc: { server: { listen(target: SocketTarget): Promise<void> } };
  socket: SocketPlace;
  shutdown: Shutdown;
}

/** Opens the socket; false when it cannot be (the daemon is then shutting down with EXIT_FAILURE). */
export async function openSocket(parts: ListeningParts): Promise<boolean> {
  const { paths, log, shutdown, socket } = parts;
  try {
    await parts.rpc.server.listen(socket.target);
  } catch (error) {
    log.error('cannot listen', { error });
    await shutdown(`cannot listen on ${paths.socketPath}: ${(error as Error).message}`, EXIT_FAILURE);
    return false;
  }
  socket.listening(parts.config.socketCheckMs, (why) => void shutdown(`${why}; no client can reach this daemon`));
  return true;
}
