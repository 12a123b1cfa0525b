/**
 * The link without a daemon: it says why, retries with a doubling wait up to its cap, starts memd
 * only when asked, and stops when disposed. (With a real daemon: test/integration/vscode-recovery.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientError, ErrorCode, RpcError } from '../../../../client/index.js';
import { DaemonLink, describeError, isConnectionError, type LinkState } from '../../../../client/vscode/src/link.js';
import { eventually } from '../../../helpers/poll.js';

let dir = '';
let links: DaemonLink[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-vscode-link-'));
});

afterEach(() => {
  for (const link of links) link.dispose();
  links = [];
  rmSync(dir, { recursive: true, force: true });
});

function link(options: Partial<ConstructorParameters<typeof DaemonLink>[0]> = {}): {
  link: DaemonLink;
  states: LinkState[];
  log: string[];
} {
  const states: LinkState[] = [];
  const log: string[] = [];
  const created = new DaemonLink({
    client: { env: { MEMD_SOCKET: join(dir, 'memd.sock') } },
    retryFirstMs: 20,
    retryMaxMs: 80,
    watchMs: 10,
    log: (line) => log.push(line),
    ...options,
  });
  created.listen({ state: (state) => states.push(state) });
  links.push(created);
  return { link: created, states, log };
}

describe('DaemonLink without a daemon', () => {
  it('says memd is not running and retries with a doubling wait up to its cap', async () => {
    const { link: tried, states } = link();
    expect(tried.current).toEqual({ kind: 'connecting' });
    await tried.start();
    expect(tried.current).toMatchObject({ kind: 'disconnected', retryInMs: 20 });
    expect(tried.current.kind === 'disconnected' && tried.current.reason).toContain(
      'memd is not running (nothing answers on',
    );
    await eventually(() => states.length >= 5, 'five attempts');
    expect(states.slice(0, 5).map((state) => (state.kind === 'disconnected' ? state.retryInMs : state.kind))).toEqual([
      20, 40, 80, 80, 80,
    ]);
  });

  it('retries at once, with the backoff reset, when asked', async () => {
    const { link: tried, states } = link({ retryFirstMs: 1_000, retryMaxMs: 60_000 });
    await tried.start();
    await tried.retryNow();
    await tried.retryNow();
    expect(states.map((state) => state.kind === 'disconnected' && state.retryInMs)).toEqual([1_000, 1_000, 1_000]);
  });

  it('runs the start command once, at the first attempt, only with autostart', async () => {
    let starts = 0;
    const starter = async () => {
      starts++;
      return { ok: false, message: 'memctl: not found' };
    };
    const off = link({ starter });
    await off.link.start();
    expect(starts).toBe(0);
    const on = link({ starter, autostart: true });
    await on.link.start();
    expect(starts).toBe(1);
    expect(on.log).toContain('memd.autostart: could not start: memctl: not found');
    await eventually(() => on.states.length >= 3, 'more attempts');
    expect(starts).toBe(1);
  });

  it('runs the start command whenever the user asks, and says when there is none', async () => {
    const { link: bare } = link();
    expect(await bare.startDaemon()).toEqual({
      ok: false,
      message: 'no start command is configured (memd.startCommand)',
    });
    let starts = 0;
    const { link: asked, log } = link({
      starter: async () => {
        starts++;
        return { ok: true, message: 'memd started' };
      },
    });
    expect(await asked.startDaemon()).toEqual({ ok: true, message: 'memd started' });
    expect(starts).toBe(1);
    expect(log).toContain('start command: ok: memd started');
  });

  it('stops trying once disposed', async () => {
    const { link: tried, states } = link();
    await tried.start();
    tried.dispose();
    const seen = states.length;
    const later = link();
    await later.link.start();
    await eventually(() => later.states.length >= 3, 'another link to retry a few times');
    expect(states.length).toBe(seen);
  });
});

describe('errors', () => {
  it('tells connection failures from answers', () => {
    expect(isConnectionError(new ClientError('NoDaemon', 'x'))).toBe(true);
    expect(isConnectionError(new ClientError('ConnectionLost', 'x'))).toBe(true);
    expect(isConnectionError(new RpcError(ErrorCode.ShuttingDown, 'ShuttingDown', 'x'))).toBe(true);
    expect(isConnectionError(new ClientError('Timeout', 'x'))).toBe(false);
    expect(isConnectionError(new RpcError(ErrorCode.NotFound, 'NotFound', 'no session'))).toBe(false);
    expect(isConnectionError('boom')).toBe(false);
  });

  it('describes any failure in words', () => {
    expect(describeError(new RpcError(ErrorCode.NotFound, 'NotFound', 'no session abc'))).toBe('no session abc');
    expect(describeError(42)).toBe('42');
  });
});
