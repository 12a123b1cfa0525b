import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLocks, type MemoryLocks, type MemoryLocksOptions } from '../../../../daemon/extraction/lock.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { eventually } from '../../../helpers/poll.js';
import { seededRandom } from '../../../helpers/seeded-random.mjs';

const CHILD_SCRIPT = resolve(import.meta.dirname, '../../../helpers/memory-lock-child.mjs');
/** proper-lockfile's minimum stale time: the fastest a dead holder can be taken over. */
const SHORT_STALE_MS = 2_000;
/** Slack for polling, process exit and a loaded 2-core machine. */
const MARGIN_MS = 1_500;

let root: string;
let dir: string;
const opened: MemoryLocks[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-memory-lock-'));
  dir = join(root, 'projects', '-p', 'session-1', 'session-memory');
});

/** Another process locks a dir that exists: with default options proper-lockfile resolves its realpath. */
function makeSessionMemoryDir(): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(opened.splice(0).map((locks) => locks.close()));
  rmSync(root, { recursive: true, force: true });
});

function makeLocks(options: Partial<MemoryLocksOptions> = {}): MemoryLocks {
  const locks = createMemoryLocks({ log: fakeLogger(), ...options });
  opened.push(locks);
  return locks;
}

async function lockedError(promise: Promise<unknown>): Promise<RpcError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(error)}`);
  expect(error.code).toBe(ErrorCode.Locked);
  expect(error.kind).toBe('Locked');
  return error;
}

const noWrite = async (): Promise<void> => {};

interface Child {
  process: ChildProcess;
  /** Resolves with the first stdout line that `match` accepts; rejects if the child exits first. */
  line(match: (line: string) => boolean, deadlineMs: number): Promise<string>;
  exited: Promise<number | null>;
}

function spawnChild(args: string[]): Child {
  const child = spawn(process.execPath, [CHILD_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters) wake();
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolvePromise) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolvePromise(code);
    }),
  );
  const line = (match: (line: string) => boolean, deadlineMs: number) =>
    new Promise<string>((resolvePromise, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found === undefined) return;
        cleanup();
        resolvePromise(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`child printed nothing matching within ${deadlineMs} ms; stderr: ${stderr}`));
      }, deadlineMs);
      const onExit = (code: number | null) => {
        check();
        cleanup();
        reject(new Error(`child exited (${code}) first; stderr: ${stderr}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
        child.off('exit', onExit);
      };
      waiters.add(check);
      child.once('exit', onExit);
      if (exitCode !== undefined) onExit(exitCode);
      else check();
    });
  return { process: child, line, exited };
}

describe('agent locks', () => {
  it('creates the session-memory dir (0700) and locks it through <dir>.lock', async () => {
    const locks = makeLocks();
    const lock = await locks.acquireForAgent(dir, 'agent-a', 5_000);
    expect(lock.owner).toBe('agent-a');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(`${dir}.lock`).isDirectory()).toBe(true);
    await locks.releaseForAgent(dir, 'agent-a');
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('renews the TTL for the same owner and refuses another owner with Locked', async () => {
    let now = 1_000_000;
    const locks = makeLocks({ clock: () => now });
    expect(await locks.acquireForAgent(dir, 'agent-a', 5_000)).toEqual({ owner: 'agent-a', expiresAt: 1_005_000 });
    now += 1_000;
    expect(await locks.acquireForAgent(dir, 'agent-a', 5_000)).toEqual({ owner: 'agent-a', expiresAt: 1_006_000 });
    const error = await lockedError(locks.acquireForAgent(dir, 'agent-b', 5_000));
    expect(error.data).toMatchObject({ owner: 'agent-a', expiresAt: 1_006_000 });
    expect(locks.held()).toEqual([{ dir: resolve(dir), owner: 'agent-a', expiresAt: 1_006_000 }]);
  });

  it('releases for the owner only, and reports a lock that is not held', async () => {
    const locks = makeLocks();
    expect(await locks.releaseForAgent(dir, 'agent-a')).toEqual({ released: false });
    await locks.acquireForAgent(dir, 'agent-a', 5_000);
    const error = await lockedError(locks.releaseForAgent(dir, 'agent-b'));
    expect(error.data).toMatchObject({ owner: 'agent-a' });
    expect(await locks.releaseForAgent(dir, 'agent-a')).toEqual({ released: true });
    expect(await locks.releaseForAgent(dir, 'agent-a')).toEqual({ released: false });
    expect(locks.held()).toEqual([]);
    await locks.acquireForAgent(dir, 'agent-b', 5_000);
  });

  it('releases a lock whose TTL ran out, so another owner and extraction can take it', async () => {
    const locks = makeLocks();
    await locks.acquireForAgent(dir, 'agent-a', 100);
    expect(await locks.withExtractionLock(dir, noWrite)).toEqual({ deferred: true });
    await eventually(() => !existsSync(`${dir}.lock`), 'the TTL timer to release the lock', 2_000);
    expect(locks.held()).toEqual([]);
    expect(await locks.withExtractionLock(dir, noWrite)).toEqual({ deferred: false });
    await locks.acquireForAgent(dir, 'agent-b', 5_000);
  });

  it('treats a TTL past the clock as expired even before its timer fires', async () => {
    let now = 1_000_000;
    const locks = makeLocks({ clock: () => now });
    await locks.acquireForAgent(dir, 'agent-a', 60_000);
    now += 60_000;
    expect(locks.held()).toEqual([]);
    expect(await locks.acquireForAgent(dir, 'agent-b', 60_000)).toEqual({ owner: 'agent-b', expiresAt: 1_120_000 });
  });

  it('rejects an empty owner and TTLs outside 1 ms to 10 minutes', async () => {
    const locks = makeLocks();
    for (const [owner, ttl] of [
      ['', 1_000],
      ['a', 0],
      ['a', 1.5],
      ['a', 600_001],
      ['a', Number.NaN],
    ] as const) {
      await expect(locks.acquireForAgent(dir, owner, ttl)).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    }
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('logs and forgets a lock that was compromised, without throwing', async () => {
    const log = fakeLogger();
    const locks = makeLocks({ log, staleMs: SHORT_STALE_MS });
    await locks.acquireForAgent(dir, 'agent-a', 60_000);
    rmdirSync(`${dir}.lock`);
    // proper-lockfile notices at its next mtime refresh (every staleMs / 2).
    await eventually(() => locks.held().length === 0, 'the compromise to be noticed', SHORT_STALE_MS + MARGIN_MS);
    expect(log.at('warn').map((line) => line.msg)).toContain('memory lock compromised; forgetting it');
    expect(await locks.releaseForAgent(dir, 'agent-a')).toEqual({ released: false });
    await locks.acquireForAgent(dir, 'agent-b', 5_000);
  });

  it('releases every lock on close, and refuses new ones after', async () => {
    const locks = makeLocks();
    const other = join(root, 'projects', '-p', 'session-2', 'session-memory');
    await locks.acquireForAgent(dir, 'agent-a', 5_000);
    await locks.acquireForAgent(other, 'agent-b', 5_000);
    await locks.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    expect(existsSync(`${other}.lock`)).toBe(false);
    await expect(locks.acquireForAgent(dir, 'agent-a')).rejects.toMatchObject({ code: ErrorCode.ShuttingDown });
    await expect(locks.withExtractionLock(dir, noWrite)).rejects.toMatchObject({ code: ErrorCode.ShuttingDown });
  });
});

describe('extraction lock', () => {
  it('says whether anyone holds the lock: nobody before the dir exists, an agent, another memd', async () => {
    const locks = makeLocks();
    expect(await locks.isLocked(dir)).toBe(false);
    await locks.acquireForAgent(dir, 'agent-a', 5_000);
    expect(await locks.isLocked(dir)).toBe(true);
    // Another process's lock is seen through the lock file alone.
    expect(await makeLocks().isLocked(dir)).toBe(true);
    await locks.releaseForAgent(dir, 'agent-a');
    expect(await locks.isLocked(dir)).toBe(false);
  });

  it('defers while an agent holds the lock, and writes once it is released', async () => {
    const locks = makeLocks();
    let writes = 0;
    const write = async () => {
      writes++;
    };
    await locks.acquireForAgent(dir, 'agent-a', 5_000);
    expect(await locks.withExtractionLock(dir, write)).toEqual({ deferred: true });
    expect(writes).toBe(0);
    await locks.releaseForAgent(dir, 'agent-a');
    expect(await locks.withExtractionLock(dir, write)).toEqual({ deferred: false });
    expect(writes).toBe(1);
  });

  it('holds the lock during the write, so an agent asking meanwhile waits for it instead of failing', async () => {
    const locks = makeLocks();
    let lockedDuringWrite = false;
    const acquired: Promise<unknown>[] = [];
    await locks.withExtractionLock(dir, async () => {
      lockedDuringWrite = existsSync(`${dir}.lock`);
      // Were it not queued behind this write, it would find the lock taken and fail with Locked.
      acquired.push(locks.acquireForAgent(dir, 'agent-a', 5_000));
    });
    expect(lockedDuringWrite).toBe(true);
    await Promise.all(acquired);
    expect(locks.held().map((lock) => lock.owner)).toEqual(['agent-a']);
  });

  it('releases the lock when the write fails, and passes the error on', async () => {
    const locks = makeLocks();
    await expect(
      locks.withExtractionLock(dir, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(existsSync(`${dir}.lock`)).toBe(false);
    expect(await locks.withExtractionLock(dir, noWrite)).toEqual({ deferred: false });
  });
});

describe('two processes', () => {
  it('defers to a process holding the lock directly, and takes it over within staleMs after kill -9', async () => {
    const locks = makeLocks({ staleMs: SHORT_STALE_MS });
    makeSessionMemoryDir();
    const holder = spawnChild(['hold', dir, String(SHORT_STALE_MS)]);
    await holder.line((line) => line === 'locked', 10_000);

    expect(await locks.withExtractionLock(dir, noWrite)).toEqual({ deferred: true });
    const error = await lockedError(locks.acquireForAgent(dir, 'agent-a', 5_000));
    expect(error.data).toMatchObject({ owner: null });

    holder.process.kill('SIGKILL');
    await holder.exited;
    const killedAt = Date.now();
    await eventually(
      async () => !(await locks.withExtractionLock(dir, noWrite)).deferred,
      'the dead holder’s lock to be taken over',
      SHORT_STALE_MS + MARGIN_MS,
    );
    expect(Date.now() - killedAt).toBeLessThanOrEqual(SHORT_STALE_MS + MARGIN_MS);
  });

  it('never lets two writers hold the lock at once over 1,000 randomized rounds', async () => {
    const CHILD_ROUNDS = 500;
    const PARENT_ROUNDS = 500;
    const AGENT_SHARE = 0.25; // of the parent's rounds go through memory.lock instead of extraction
    const MAX_HOLD_MS = 3;
    const seed = (Date.now() ^ process.pid) >>> 0;
    const random = seededRandom(seed);
    const writeLog = join(root, 'writes.log');
    const fd = openSync(writeLog, 'a');
    const append = (line: string) => appendFileSync(fd, `${line}\n`);
    const hold = () => {
      const ms = Math.floor(random() * (MAX_HOLD_MS + 1));
      return ms > 0 ? delay(ms) : Promise.resolve();
    };
    const locks = makeLocks();
    const stats = { extracted: 0, deferred: 0, agentTaken: 0, agentLocked: 0, innerDeferred: 0 };

    makeSessionMemoryDir();
    const child = spawnChild(['rounds', dir, writeLog, String(CHILD_ROUNDS), '10000', String(seed + 1)]);
    await child.line((line) => line === 'ready', 10_000);
    for (let round = 0; round < PARENT_ROUNDS; round++) {
      if (random() < AGENT_SHARE) {
        try {
          await locks.acquireForAgent(dir, 'agent', 5_000);
        } catch (error) {
          if (!(error instanceof RpcError) || error.code !== ErrorCode.Locked) throw error;
          stats.agentLocked++;
          continue;
        }
        stats.agentTaken++;
        append('agent start');
        // Extraction tried while the agent holds the lock must defer; if it wrote, the log shows it.
        const inner = await locks.withExtractionLock(dir, async () => {
          append('parent start');
          append('parent end');
        });
        if (inner.deferred) stats.innerDeferred++;
        await hold();
        append('agent end');
        await locks.releaseForAgent(dir, 'agent');
        continue;
      }
      const result = await locks.withExtractionLock(dir, async () => {
        append('parent start');
        await hold();
        append('parent end');
      });
      if (result.deferred) stats.deferred++;
      else stats.extracted++;
    }
    const counts = JSON.parse(await child.line((line) => line.startsWith('{'), 20_000)) as {
      taken: number;
      busy: number;
    };
    expect(await child.exited).toBe(0);
    closeSync(fd);

    const context = `seed ${seed}, ${JSON.stringify({ ...stats, child: counts })}`;
    const lines = readFileSync(writeLog, 'utf8').trimEnd().split('\n');
    expect(overlaps(lines), context).toEqual([]);
    expect(lines.filter((line) => line === 'child start').length, context).toBe(counts.taken);
    expect(lines.filter((line) => line === 'parent start').length, context).toBe(stats.extracted);
    expect(lines.filter((line) => line === 'agent start').length, context).toBe(stats.agentTaken);
    expect(stats.innerDeferred, context).toBe(stats.agentTaken);
    expect(counts.taken + counts.busy, context).toBe(CHILD_ROUNDS);
    // Both sides wrote, and they really contended for the lock.
    expect(counts.taken, context).toBeGreaterThan(0);
    expect(stats.extracted + stats.agentTaken, context).toBeGreaterThan(0);
    expect(counts.busy + stats.deferred + stats.agentLocked, context).toBeGreaterThan(0);
  });
});

/** Every place in the write log where a writer started while another was still inside. */
function overlaps(lines: readonly string[]): string[] {
  const found: string[] = [];
  let inside: string | undefined;
  lines.forEach((line, index) => {
    const [writer, event] = line.split(' ');
    if (event === 'start') {
      if (inside !== undefined) found.push(`line ${index + 1}: ${writer} started while ${inside} held the lock`);
      inside = writer;
      return;
    }
    if (inside !== writer) found.push(`line ${index + 1}: ${writer} ended while ${inside ?? 'nobody'} held the lock`);
    inside = undefined;
  });
  return found;
}

describe('a hold that lasts while its session is active', () => {
  it('starts its TTL again at each renewal; a plain hold, or one that lapsed, is not renewed', async () => {
    let now = 1_000;
    const locks = makeLocks({ clock: () => now });
    const taken = await locks.acquireForAgent(dir, 'claude-code-turn', 60_000, { whileActive: true });
    expect(taken).toEqual({ owner: 'claude-code-turn', expiresAt: 61_000, whileActive: true });
    now = 30_000;
    locks.renewActive(dir);
    expect(locks.held()).toEqual([{ dir: resolve(dir), owner: 'claude-code-turn', expiresAt: 90_000 }]);
    now = 91_000;
    locks.renewActive(dir);
    expect(locks.held()).toEqual([]);

    const other = join(root, 'projects', '-p', 'session-2', 'session-memory');
    now = 100_000;
    expect(await locks.acquireForAgent(other, 'agent', 60_000)).toEqual({ owner: 'agent', expiresAt: 160_000 });
    now = 110_000;
    locks.renewActive(other);
    expect(locks.held().find((held) => held.dir === resolve(other))?.expiresAt).toBe(160_000);
  });
});
