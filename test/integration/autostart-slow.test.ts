/**
 * A daemon the client starts may take longer than the call's 3 s to come up (a first start on a
 * loaded machine): the client waits for it, and the call then gets its own full timeout instead of
 * what the start left (CI once printed "daemon.status got no answer within 1 ms").
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_MS } from '../../client/client.js';
import { MemdClient } from '../../client/index.js';
import { eventually, makeSandbox, runMemctl, type Sandbox } from '../helpers/sandbox.js';

/** A preload that holds the daemon's start until the gate file exists (bounded, so no memd outlives the test). */
const GATE_PRELOAD = `const { existsSync } = require('node:fs');
const gate = process.env.MEMD_TEST_START_GATE;
const until = Date.now() + 30000;
const cell = new Int32Array(new SharedArrayBuffer(4));
while (gate && !existsSync(gate) && Date.now() < until) Atomics.wait(cell, 0, 0, 20);
`;

let sandbox: Sandbox | undefined;
let gate: string | undefined;
afterEach(async () => {
  // Whatever failed, the held start is let through and the daemon stopped once it listens: none outlives the test.
  if (gate !== undefined) writeFileSync(gate, '');
  const left = sandbox;
  if (left !== undefined) {
    await eventually(() => existsSync(left.socketPath), 'the started daemon to listen', 20_000).catch(() => undefined);
    await runMemctl(left, ['stop']);
  }
  sandbox = undefined;
  gate = undefined;
});

describe('a daemon that starts slowly', () => {
  it('is waited for past the call timeout, and the call after it gets a full timeout', async () => {
    sandbox = makeSandbox();
    const preload = join(sandbox.root, 'gate.cjs');
    gate = join(sandbox.root, 'gate');
    writeFileSync(preload, GATE_PRELOAD);
    const client = new MemdClient({
      env: { ...sandbox.env, NODE_OPTIONS: `--require ${preload}`, MEMD_TEST_START_GATE: gate },
    });
    const startedAt = Date.now();
    const status = client.callRaw('daemon.status', {});
    // The start outlasts the whole default timeout before the daemon may even load.
    await eventually(
      () => Date.now() - startedAt > DEFAULT_TIMEOUT_MS + 500,
      'the default timeout to pass',
      DEFAULT_TIMEOUT_MS + 2_000,
    );
    writeFileSync(gate, '');
    try {
      await expect(status).resolves.toMatchObject({ pid: expect.any(Number) });
      expect(client.started).toBe('detached');
    } finally {
      client.close();
    }
  }, 40_000);
});
