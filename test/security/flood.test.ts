/**
 * Issue 27 item 4: connections that send heavy requests and never read their answers grew memd to
 * gigabytes, and a new client's daemon.status timed out. The answer budget keeps RSS bounded:
 * heavy requests beyond it are answered Busy (-32005, retryAfterMs), cheap ones are answered
 * throughout, and closing the flooders frees the budget at once.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/client.js';
import { generateSession, writeGeneratedSession } from '../helpers/generated-sessions.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { eventually, makeSandbox, startDaemon } from '../helpers/sandbox.js';

const FLOODERS = 12;
const REQUESTS_PER_FLOODER = 16;
/** The largest page a caller may ask for (MAX_EXPORT_PAGE_BYTES); the daemon builds pages of 1 MiB at most. */
const PAGE_BYTES = 8 * 1024 * 1024;
/**
 * The budget under test: one answer's reservation (16 MiB), so that any answer left unread holds it
 * (pages are 1 MiB at most, and twelve connections' unread pages would not fill a larger one for sure).
 */
const LIMITS = {
  MEMD_MAX_ANSWER_BYTES: String(16 * 1024 * 1024),
  MEMD_MAX_HEAVY_REQUESTS: '2',
  MEMD_ANSWER_STALL_TIMEOUT_MS: '600000',
};
/**
 * memd at rest is ~100-150 MB; the budget (16 MiB) and two answers being built add ~100 MB. The
 * original code built and queued every answer: 192 pages of 8 MiB (over 1 GB before its 64 MiB
 * per-connection cut-off closed the flooders).
 */
const MAX_PEAK_RSS_BYTES = 400 * 1024 * 1024;

function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** A connection that writes its requests and reads nothing. */
function flood(path: string, sessionId: string, index: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.pause();
      let frames = '';
      for (let i = 0; i < REQUESTS_PER_FLOODER; i++) {
        frames += `${JSON.stringify({ jsonrpc: '2.0', id: index * 1000 + i, method: 'export.session', params: { sessionId, format: 'jsonl', maxBytes: PAGE_BYTES } })}\n`;
      }
      socket.write(frames);
      resolve(socket);
    });
  });
}

describe('clients that never read', () => {
  it('keep memd bounded: Busy past the budget, cheap calls answered, the budget freed when they go', async () => {
    const sandbox = makeSandbox();
    const session = generateSession({
      seed: 27,
      rounds: 1_400,
      compacted: false,
      prompts: true,
      bigReads: true,
      tokensPerEstimate: 1,
    });
    writeGeneratedSession(sandbox.projectsDir, session);
    const daemon = await startDaemon(sandbox, undefined, LIMITS);
    const client = createClient({ env: sandbox.env, autostart: false, timeoutMs: 10_000 });
    const good = await RawSocket.open(sandbox.socketPath);
    const flooders: Socket[] = [];
    const smallPage = { sessionId: session.sessionId, format: 'jsonl', maxBytes: 1024 };
    try {
      await eventually(
        async () => (await good.request('export.session', smallPage)).result !== undefined,
        'the session to be indexed',
        60_000,
      );
      await eventually(
        async () =>
          (await client.sessionsList({ limit: 5 })).sessions.some((summary) => summary.sessionId === session.sessionId),
        'the session to be listed',
        60_000,
      );
      const first = (await good.request('export.session', smallPage)).result as { totalBytes: number };
      expect(first.totalBytes).toBeGreaterThan(PAGE_BYTES);

      for (let i = 0; i < FLOODERS; i++) flooders.push(await flood(sandbox.socketPath, session.sessionId, i + 1));
      // Settled: nothing heavy runs, the rest was refused or waits behind its own connection's unread answers.
      // (The original daemon has no budget to report; its RSS passes the bound on the way.)
      let settled = false;
      await eventually(
        async () => {
          const answers = (await client.daemonStatus()).counts.answers;
          settled = answers !== undefined && answers.heavyRunning === 0 && answers.busyAnswers > 0;
          return settled || peakRss(daemon.pid) > MAX_PEAK_RSS_BYTES;
        },
        'the flood to settle',
        120_000,
      );
      expect(peakRss(daemon.pid)).toBeLessThan(MAX_PEAK_RSS_BYTES);
      expect(settled).toBe(true);

      // Cheap requests never queue behind heavy ones, from a fresh client too.
      const fresh = createClient({ env: sandbox.env, autostart: false });
      try {
        expect((await fresh.daemonStatus()).pid).toBe(daemon.pid);
        expect((await fresh.sessionsList({ limit: 5 })).sessions.map((summary) => summary.sessionId)).toContain(
          session.sessionId,
        );
      } finally {
        fresh.close();
      }
      // A heavy request past the budget held by unread answers is refused at once, with a hint.
      const refused = (await good.request('export.session', smallPage)).error as {
        code: number;
        message: string;
        data: { kind: string; retryAfterMs: number };
      };
      expect(refused).toMatchObject({ code: -32005, data: { kind: 'Busy' } });
      expect(refused.data.retryAfterMs).toBeGreaterThan(0);
      expect(refused.message).toContain('not read');

      // The flooders go: their answers and waiting requests are dropped, and the budget is free again.
      for (const socket of flooders) socket.destroy();
      await eventually(
        async () => (await good.request('export.session', smallPage)).result !== undefined,
        'an export after the flooders left',
        30_000,
      );
      const answers = (await client.daemonStatus()).counts.answers;
      expect(answers).toMatchObject({ heavyWaiting: 0, heavyRunning: 0, reservedBytes: 0 });
      expect(peakRss(daemon.pid)).toBeLessThan(MAX_PEAK_RSS_BYTES);
    } finally {
      for (const socket of flooders) socket.destroy();
      good.close();
      client.close();
    }
  }, 240_000);

  it('closes a connection that reads none of its answers for answerStallTimeoutMs, freeing its part', async () => {
    const sandbox = makeSandbox();
    const session = generateSession({
      seed: 28,
      rounds: 400,
      compacted: false,
      prompts: true,
      bigReads: true,
      tokensPerEstimate: 1,
    });
    writeGeneratedSession(sandbox.projectsDir, session);
    await startDaemon(sandbox, undefined, { MEMD_ANSWER_STALL_TIMEOUT_MS: '500' });
    const client = createClient({ env: sandbox.env, autostart: false, timeoutMs: 10_000 });
    const good = await RawSocket.open(sandbox.socketPath);
    const page = { sessionId: session.sessionId, format: 'jsonl', maxBytes: 1024 };
    let stalled: Socket | undefined;
    try {
      await eventually(
        async () => (await good.request('export.session', page)).result !== undefined,
        'the session to be indexed',
        60_000,
      );
      stalled = await flood(sandbox.socketPath, session.sessionId, 1);
      await eventually(
        async () => (await client.daemonStatus()).counts.answers.queuedBytes > 0,
        'answers queued for the stalled client',
      );
      await eventually(async () => {
        const { counts } = await client.daemonStatus();
        return counts.connections === 2 && counts.answers.queuedBytes === 0 && counts.answers.heavyWaiting === 0;
      }, 'the stalled connection to be closed');
      expect((await good.request('export.session', page)).result).toBeDefined();
    } finally {
      stalled?.destroy();
      good.close();
      client.close();
    }
  }, 120_000);
});
