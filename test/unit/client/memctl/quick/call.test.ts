/** The quick path's socket: from HOME when set, else from the user's home as the OS says it (node:os, loaded then only). */
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { socketPathOf } from '../../../../../client/memctl/quick/call.js';
import { resolvePaths } from '../../../../../shared/paths.js';

describe('socketPathOf', () => {
  it('resolves the socket under HOME, or under the home directory when HOME is unset or empty', async () => {
    expect(await socketPathOf({ HOME: '/home/someone' })).toBe('/home/someone/.local/state/memd/memd.sock');
    expect(await socketPathOf({ HOME: '/home/someone', XDG_RUNTIME_DIR: '/run/user/7' })).toBe(
      '/run/user/7/memd/memd.sock',
    );
    for (const env of [{}, { HOME: '' }]) expect(await socketPathOf(env)).toBe(resolvePaths({}, homedir()).socketPath);
  });
});

/** A daemon on a temp socket that answers each request by `answer`, logging what it was asked in order. */
async function fakeDaemon(answer: (method: string) => unknown | undefined) {
  const { createServer } = await import('node:net');
  const { mkdtempSync } = await import('node:fs');
  const { join } = await import('node:path');
  const path = join(mkdtempSync('/tmp/memd-q-'), 's');
  const asked: string[] = [];
  const server = createServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, at)) as { id?: number; method: string };
        buffered = buffered.slice(at + 1);
        asked.push(message.method);
        if (message.id === undefined) continue;
        const result = message.method === 'daemon.version' ? { protocol: 1 } : answer(message.method);
        if (result !== undefined) socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, asked, close: () => server.close() };
}

describe('quickCalls (issue 33)', () => {
  it('asks each request once the one before it is answered, and gives every answer', async () => {
    const { quickCalls } = await import('../../../../../client/memctl/quick/call.js');
    const daemon = await fakeDaemon((method) => ({ method }));
    try {
      const answers = await quickCalls(
        daemon.path,
        [
          { method: 'memory.lock', params: {} },
          { method: 'recall.forPrompt', params: {} },
        ],
        5_000,
      );
      expect(answers).toEqual([
        { ok: true, result: { method: 'memory.lock' } },
        { ok: true, result: { method: 'recall.forPrompt' } },
      ]);
      expect(daemon.asked).toEqual(['daemon.version', 'memory.lock', 'recall.forPrompt']);
    } finally {
      daemon.close();
    }
  });

  it('ends the exchange when a request is not answered in time: the rest is never asked', async () => {
    const { quickCalls } = await import('../../../../../client/memctl/quick/call.js');
    const daemon = await fakeDaemon(() => undefined);
    try {
      const answers = await quickCalls(
        daemon.path,
        [
          { method: 'memory.lock', params: {}, deadlineMs: 20 },
          { method: 'recall.forPrompt', params: {} },
        ],
        5_000,
      );
      expect(answers).toEqual([null, null]);
      expect(daemon.asked).toEqual(['daemon.version', 'memory.lock']);
    } finally {
      daemon.close();
    }
  });
});
