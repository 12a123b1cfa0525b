/**
 * The lock between a main agent and session-memory extraction (DESIGN.md §6): one proper-lockfile
 * lock per session-memory dir, `<dir>.lock`. memd takes it on an agent's behalf (`memory.lock`,
 * with a TTL) and for each extraction write; other processes may take the same lock directly with
 * proper-lockfile. An extraction never waits for it: when someone else holds it, it defers.
 * A holder that died stops refreshing the lock's mtime and is taken over after `staleMs`.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { ErrorCode, invalidParams, RpcError } from '../../shared/protocol/errors.js';
import type { Logger } from '../log/logger.js';

/** proper-lockfile's default; a live holder refreshes its mtime every `staleMs / 2`. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
/** proper-lockfile refuses less: it cannot tell a slow refresh from a dead holder below this. */
export const MIN_LOCK_STALE_MS = 2_000;
/** An agent that has not renewed its lock for a minute is presumed gone. */
export const DEFAULT_AGENT_TTL_MS = 60_000;
/** Longer holds must be renewed, so a forgotten lock never blocks extraction for long. */
export const MAX_AGENT_TTL_MS = 10 * 60_000;

export interface AgentLock {
  owner: string;
  /** The TTL runs from the session's last transcript activity (renewActive), not only from the call. */
  whileActive?: boolean;
  /** Epoch ms after which memd releases the lock unless the owner renews it. */
  expiresAt: number;
}

export interface HeldAgentLock extends AgentLock {
  dir: string;
}

export interface MemoryLocks {
  /** Takes (or, for the same owner, renews) the lock of a session-memory dir for a main agent. */
  acquireForAgent(dir: string, owner: string, ttlMs?: number, options?: { whileActive?: boolean }): Promise<AgentLock>;
  /**
   * The session wrote to its transcript: a `whileActive` hold starts its TTL again. A turn that
   * keeps working keeps the lock without a hook per tool call; one that died stops renewing it.
   */
  renewActive(dir: string): void;
  releaseForAgent(dir: string, owner: string): Promise<{ released: boolean }>;
  /** Whether anyone holds the lock right now: an agent through memd, or another process. */
  isLocked(dir: string): Promise<boolean>;
  /** Runs `write` under the lock if it is free right now; otherwise defers without calling it. */
  withExtractionLock(dir: string, write: () => Promise<void>): Promise<{ deferred: boolean }>;
  /** Locks held for agents, for status. */
  held(): HeldAgentLock[];
  /** Releases every lock memd holds; later calls fail with ShuttingDown. */
  close(): Promise<void>;
}

export interface MemoryLocksOptions {
  staleMs?: number;
  /** How often a held lock's mtime is refreshed; proper-lockfile keeps it within [1000, staleMs / 2]. */
  updateMs?: number;
  clock?: () => number;
  log: Logger;
}

type Release = () => Promise<void>;

interface AgentEntry extends AgentLock {
  ttlMs: number;
  release: Release;
  timer: NodeJS.Timeout | undefined;
  /** Set once the lock is gone (released, expired or compromised), so it is let go only once. */
  gone: boolean;
}

function isLockedError(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED';
}

function validateAgentParams(owner: string, ttlMs: number): void {
  if (owner.length === 0) throw invalidParams('owner must not be empty');
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_AGENT_TTL_MS) {
    throw invalidParams(`ttlMs must be an integer from 1 to ${MAX_AGENT_TTL_MS}`, { ttlMs });
  }
}

export function createMemoryLocks(options: MemoryLocksOptions): MemoryLocks {
  const { log } = options;
  const clock = options.clock ?? Date.now;
  const staleMs = Math.max(options.staleMs ?? DEFAULT_LOCK_STALE_MS, MIN_LOCK_STALE_MS);
  const agents = new Map<string, AgentEntry>();
  /** One operation per dir at a time in this process, so acquire, renew, expire and release never interleave. */
  const queues = new Map<string, Promise<unknown>>();
  let closed = false;

  /**
   * The one place the lock is taken. No retries: callers either defer or report Locked.
   * `realpath` matches proper-lockfile's default, so a process that locks the same dir with
   * default options (through a symlinked path too) contends for the same `<dir>.lock`.
   */
  const takeLock = async (dir: string, onCompromised: (error: Error) => void): Promise<Release> => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return lockfile.lock(dir, {
      stale: staleMs,
      update: options.updateMs,
      retries: 0,
      realpath: true,
      onCompromised: (error) => {
        try {
          onCompromised(error);
        } catch (thrown) {
          // proper-lockfile calls this from a timer; a throw here would crash the daemon.
          log.error('memory lock: compromise handler failed', { dir, error: thrown });
        }
      },
    });
  };

  /** Releases quietly: a lock that was compromised meanwhile is already gone, which is fine. */
  const letGo = async (dir: string, release: Release): Promise<void> => {
    try {
      await release();
    } catch (error) {
      log.warn('memory lock: release failed', { dir, error });
    }
  };

  const serialize = <T>(dir: string, operation: () => Promise<T>): Promise<T> => {
    const previous = queues.get(dir) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    const tail = next.catch(() => {});
    queues.set(dir, tail);
    void tail.then(() => {
      if (queues.get(dir) === tail) queues.delete(dir);
    });
    return next;
  };

  const ensureOpen = (): void => {
    if (closed) throw new RpcError(ErrorCode.ShuttingDown, 'ShuttingDown', 'memd is shutting down');
  };

  /** Stops tracking an agent's lock; false if it was already gone. */
  const forgetAgent = (dir: string, entry: AgentEntry): boolean => {
    if (entry.gone) return false;
    entry.gone = true;
    clearTimeout(entry.timer);
    if (agents.get(dir) === entry) agents.delete(dir);
    return true;
  };

  const dropAgent = async (dir: string, entry: AgentEntry, reason: string): Promise<void> => {
    if (!forgetAgent(dir, entry)) return;
    log.info('memory lock released', { dir, owner: entry.owner, reason });
    await letGo(dir, entry.release);
  };

  /** A TTL that ran out by the clock counts even if its timer has not fired yet. */
  const liveAgent = async (dir: string): Promise<AgentEntry | undefined> => {
    const entry = agents.get(dir);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > clock()) return entry;
    await dropAgent(dir, entry, 'ttl expired');
    return undefined;
  };

  const armTtl = (dir: string, entry: AgentEntry, ttlMs: number): void => {
    clearTimeout(entry.timer);
    entry.ttlMs = ttlMs;
    entry.expiresAt = clock() + ttlMs;
    entry.timer = setTimeout(() => {
      void serialize(dir, () => dropAgent(dir, entry, 'ttl expired'));
    }, ttlMs);
    entry.timer.unref();
  };

  const lockedBy = (entry: AgentLock, dir: string): RpcError =>
    new RpcError(ErrorCode.Locked, 'Locked', `session memory ${dir} is locked by ${entry.owner}`, {
      owner: entry.owner,
      expiresAt: entry.expiresAt,
    });

  const lockedByAnotherProcess = (dir: string): RpcError =>
    new RpcError(ErrorCode.Locked, 'Locked', `session memory ${dir} is locked by another process`, {
      owner: null,
      expiresAt: null,
    });

  const acquireForAgent = (
    rawDir: string,
    owner: string,
    ttlMs = DEFAULT_AGENT_TTL_MS,
    options: { whileActive?: boolean } = {},
  ): Promise<AgentLock> => {
    const whileActive = options.whileActive === true;
    const dir = resolve(rawDir);
    return serialize(dir, async () => {
      ensureOpen();
      validateAgentParams(owner, ttlMs);
      const current = await liveAgent(dir);
      if (current !== undefined) {
        if (current.owner !== owner) throw lockedBy(current, dir);
        current.whileActive = whileActive;
        armTtl(dir, current, ttlMs);
        return { owner, expiresAt: current.expiresAt, ...(whileActive ? { whileActive } : {}) };
      }
      let entry: AgentEntry | undefined;
      let release: Release;
      try {
        release = await takeLock(dir, (error) => {
          if (entry === undefined || !forgetAgent(dir, entry)) return;
          log.warn('memory lock compromised; forgetting it', { dir, owner, error });
        });
      } catch (error) {
        if (isLockedError(error)) throw lockedByAnotherProcess(dir);
        throw error;
      }
      entry = { owner, whileActive, expiresAt: 0, ttlMs, release, timer: undefined, gone: false };
      armTtl(dir, entry, ttlMs);
      agents.set(dir, entry);
      log.info('memory lock taken', { dir, owner, expiresAt: entry.expiresAt, whileActive });
      return { owner, expiresAt: entry.expiresAt, ...(whileActive ? { whileActive } : {}) };
    });
  };

  const releaseForAgent = (rawDir: string, owner: string): Promise<{ released: boolean }> => {
    const dir = resolve(rawDir);
    return serialize(dir, async () => {
      const current = await liveAgent(dir);
      if (current === undefined) return { released: false };
      if (current.owner !== owner) throw lockedBy(current, dir);
      await dropAgent(dir, current, 'unlocked');
      return { released: true };
    });
  };

  const withExtractionLock = (rawDir: string, write: () => Promise<void>): Promise<{ deferred: boolean }> => {
    const dir = resolve(rawDir);
    return serialize(dir, async () => {
      ensureOpen();
      if ((await liveAgent(dir)) !== undefined) return { deferred: true };
      let compromised = false;
      let release: Release;
      try {
        release = await takeLock(dir, (error) => {
          compromised = true;
          log.warn('memory lock compromised during an extraction write', { dir, error });
        });
      } catch (error) {
        if (isLockedError(error)) return { deferred: true };
        throw error;
      }
      try {
        await write();
      } finally {
        if (!compromised) await letGo(dir, release);
      }
      return { deferred: false };
    });
  };

  const isLocked = async (rawDir: string): Promise<boolean> => {
    const dir = resolve(rawDir);
    if ((await liveAgent(dir)) !== undefined) return true;
    try {
      return await lockfile.check(dir, { stale: staleMs, realpath: true });
    } catch (error) {
      // No session-memory dir yet: nobody can hold its lock.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  };

  const renewActive = (rawDir: string): void => {
    const dir = resolve(rawDir);
    const entry = agents.get(dir);
    // Only a live hold: one whose TTL ran out is released by its timer (or the next look at it).
    if (entry === undefined || entry.gone || entry.whileActive !== true || entry.expiresAt <= clock()) return;
    armTtl(dir, entry, entry.ttlMs);
  };

  const held = (): HeldAgentLock[] => {
    const now = clock();
    return [...agents]
      .filter(([, entry]) => entry.expiresAt > now)
      .map(([dir, entry]) => ({ dir, owner: entry.owner, expiresAt: entry.expiresAt }));
  };

  const close = async (): Promise<void> => {
    closed = true;
    await Promise.all([...queues.values()]);
    await Promise.all([...agents].map(([dir, entry]) => dropAgent(dir, entry, 'shutdown')));
  };

  return { acquireForAgent, renewActive, releaseForAgent, isLocked, withExtractionLock, held, close };
}
