/**
 * A call the client gives up on is cancelled on the daemon's side too (`$/cancelRequest`), and
 * the methods that may ask a model get more than the 3 s default unless the caller chose a timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemdClient } from '../../../client/index.js';
import { PROTOCOL_VERSION } from '../../../shared/protocol/daemon.js';
import { eventually } from '../../helpers/sandbox.js';

let dir: string | undefined;
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  server = undefined;
});

/** A daemon that answers the handshake and then nothing, recording every frame it gets. */
async function silentDaemon(): Promise<{ socketPath: string; frames: Record<string, unknown>[] }> {
  dir = mkdtempSync(join(tmpdir(), 'memd-timeouts-'));
  const socketPath = join(dir, 'memd.sock');
  const frames: Record<string, unknown>[] = [];
  const sockets: Socket[] = [];
  server = createServer((socket) => {
    sockets.push(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const frame = JSON.parse(buffered.slice(0, at)) as Record<string, unknown>;
        buffered = buffered.slice(at + 1);
        frames.push(frame);
        if (frame.method === 'daemon.version') {
          socket.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: frame.id, result: { name: 'memd', version: '0.1.0', protocol: PROTOCOL_VERSION, capabilities: [] } })}\n`,
          );
        }
      }
    });
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server?.listen(socketPath, resolve));
  return { socketPath, frames };
}

describe('client timeouts', () => {
  it('cancels on the daemon a call it stopped waiting for', async () => {
    const { socketPath, frames } = await silentDaemon();
    const client = new MemdClient({ socketPath, autostart: false, timeoutMs: 200 });
    try {
      await expect(client.callRaw('sessions.list', {})).rejects.toMatchObject({ kind: 'Timeout' });
      const call = frames.find((frame) => frame.method === 'sessions.list');
      await eventually(() => frames.some((frame) => frame.method === '$/cancelRequest'), 'the cancel to arrive');
      expect(frames).toContainEqual({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: call?.id } });
    } finally {
      client.close();
    }
  });

  it('gives a handoff more than the default 3 s, unless the caller chose a timeout', async () => {
    const { socketPath } = await silentDaemon();
    const patient = new MemdClient({ socketPath, autostart: false });
    const outcome = await Promise.race([
      patient.callRaw('handoff.generate', { sessionId: 'x', cwd: '/tmp' }).then(
        () => 'answered',
        (error: unknown) => (error as { kind?: string }).kind,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_500)),
    ]);
    patient.close();
    expect(outcome).toBe('still waiting');
    const hurried = new MemdClient({ socketPath, autostart: false, timeoutMs: 100 });
    await expect(hurried.callRaw('handoff.generate', { sessionId: 'x', cwd: '/tmp' })).rejects.toMatchObject({
      kind: 'Timeout',
    });
    hurried.close();
  });
});
