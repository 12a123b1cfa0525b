/**
 * Issue 27 item 5: no request or event holds the daemon's event loop. A session's first load
 * (search.context, compact.*) goes in slices, so a daemon.status sent after it on the same
 * connection is answered first (ordering, not milliseconds: on one connection both handlers start
 * in the same turn, and only a load that lets the loop turn can be overtaken). A projects dir that
 * resolves to `/` or into /proc is refused with a reason, at start and when swapped in.
 */
import { readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../shared/protocol/daemon.js';
import { generateSession, writeGeneratedSession } from '../helpers/generated-sessions.js';
import { eventually } from '../helpers/poll.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { mainPath } from '../helpers/real-shapes.js';
import { makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

/** Generous: the daemon shares two cores with the test runner and its siblings. */
const ANSWER_MS = 60_000;
const INGEST_MS = 60_000;

async function status(socket: RawSocket): Promise<DaemonStatus> {
  return (await socket.request('daemon.status', {}, ANSWER_MS)).result as DaemonStatus;
}

/** A session of a few thousand rows; its usage stays far below auto-compaction, so nothing loads it before the test does. */
function writeSession(sandbox: Sandbox): { sessionId: string; lastUuid: string } {
  const generated = generateSession({
    seed: 5,
    rounds: 400,
    compacted: false,
    prompts: true,
    bigReads: false,
    tokensPerEstimate: 0.01,
  });
  writeGeneratedSession(sandbox.projectsDir, generated);
  const lines = readFileSync(mainPath(sandbox.projectsDir, generated.cwd, generated.sessionId), 'utf8')
    .trim()
    .split('\n');
  const last = lines
    .map((line) => JSON.parse(line) as { type?: string; uuid?: string })
    .findLast((entry) => entry.type === 'assistant');
  return { sessionId: generated.sessionId, lastUuid: last?.uuid as string };
}

/** Sends `method` then daemon.status on one connection, in one write; the ids in the order they were answered. */
async function answerOrder(socket: RawSocket, method: string, params: unknown): Promise<string[]> {
  socket.send(
    `${JSON.stringify({ jsonrpc: '2.0', id: 'heavy', method, params })}\n${JSON.stringify({ jsonrpc: '2.0', id: 'status', method: 'daemon.status', params: {} })}\n`,
  );
  const order: string[] = [];
  while (order.length < 2) {
    const message = (await socket.next(ANSWER_MS)) as { id?: string; error?: unknown };
    if (message.id === 'heavy') expect(message.error).toBeUndefined();
    if (message.id === 'heavy' || message.id === 'status') order.push(message.id);
  }
  return order;
}

async function daemonWithSession(): Promise<{ socket: RawSocket; session: { sessionId: string; lastUuid: string } }> {
  const sandbox = makeSandbox();
  const session = writeSession(sandbox);
  await startDaemon(sandbox);
  const socket = await RawSocket.open(sandbox.socketPath);
  await eventually(
    async () => {
      const { ingest } = await status(socket);
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.entries > 1_000;
    },
    'the session to be indexed',
    INGEST_MS,
  );
  return { socket, session };
}

describe('a session loaded for the first time', () => {
  it('search.context lets a daemon.status sent after it be answered first', async () => {
    const { socket, session } = await daemonWithSession();
    expect(
      await answerOrder(socket, 'search.context', {
        sessionId: session.sessionId,
        uuid: session.lastUuid,
        before: 1,
        after: 0,
      }),
    ).toEqual(['status', 'heavy']);
    const after = await status(socket);
    expect(after.loop.maxDelayMs).toBeGreaterThanOrEqual(0);
    expect(after.loop.p99DelayMs).toBeLessThanOrEqual(after.loop.maxDelayMs);
    socket.close();
  });

  // compact.micro writes the tool results it clears before it answers, so its answer comes after
  // that I/O even when the load holds the loop; compact.cacheEdits answers as soon as it has loaded.
  it('compact.cacheEdits lets a daemon.status sent after it be answered first', async () => {
    const { socket, session } = await daemonWithSession();
    expect(await answerOrder(socket, 'compact.cacheEdits', { sessionId: session.sessionId })).toEqual([
      'status',
      'heavy',
    ]);
    socket.close();
  });
});

/** Replaces the projects dir by a symlink to `target`. */
function linkProjects(sandbox: Sandbox, target: string): void {
  rmSync(sandbox.projectsDir, { recursive: true, force: true });
  symlinkSync(target, sandbox.projectsDir);
}

describe('a projects dir that resolves to a system tree', () => {
  it.each(['/', '/proc', '/proc/self'])(
    'is refused at start when it links to %s, with the reason in daemon.status and memctl status',
    async (target) => {
      const sandbox = makeSandbox();
      linkProjects(sandbox, target);
      const daemon = await startDaemon(sandbox);
      const socket = await RawSocket.open(sandbox.socketPath);
      await eventually(
        async () => (await status(socket)).ingest.watcher.state === 'refused',
        'the watcher to refuse the projects dir',
      );
      const { watcher } = (await status(socket)).ingest;
      expect(watcher.reason).toMatch(target === '/' ? /resolves to \/ / : /inside \/proc/);
      const shown = await runMemctl(sandbox, ['status']);
      expect(shown.stdout).toContain('projects dir refused');
      // Never walked: no backfill was queued from it.
      expect(daemon.output()).not.toContain('"msg":"watching transcripts"');
      socket.close();
    },
  );

  it('is refused when swapped in while memd runs, and watched again once it is a real dir again', async () => {
    const sandbox = makeSandbox();
    await startDaemon(sandbox);
    const socket = await RawSocket.open(sandbox.socketPath);
    await eventually(async () => (await status(socket)).ingest.watcher.state === 'watching', 'the watcher to arm');
    renameSync(sandbox.projectsDir, `${sandbox.projectsDir}.real`);
    symlinkSync('/', sandbox.projectsDir);
    await eventually(
      async () => (await status(socket)).ingest.watcher.state === 'refused',
      'the watcher to refuse /',
      20_000,
    );
    expect((await status(socket)).ingest.watcher.reason).toContain('resolves to /');
    rmSync(sandbox.projectsDir);
    renameSync(`${sandbox.projectsDir}.real`, sandbox.projectsDir);
    await eventually(
      async () => (await status(socket)).ingest.watcher.state === 'watching',
      'the watcher to watch the real dir again',
      20_000,
    );
    socket.close();
  });
});
