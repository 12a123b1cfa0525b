/** `memdir.conflicts` and `memdir.resolve` behind the dispatcher, over two real machines' memdir sync (issue 35). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { etagOf } from '../../../../../daemon/memory/memdir/store.js';
import { type CallContext, createDispatcher } from '../../../../../daemon/rpc/dispatch.js';
import { memdirSyncMethods } from '../../../../../daemon/rpc/methods/memdir-sync.js';
import { ErrorCode } from '../../../../../shared/protocol/errors.js';
import { memdirConflictsResultSchema, memdirResolveResultSchema } from '../../../../../shared/protocol/memdir.js';
import { parseAnswer } from '../../../../../shared/protocol/schema.js';
import { fakeLogger } from '../../../../helpers/fake-logger.js';
import { carry, carryAll, type Machine, machine, PROJECT } from '../../../../helpers/memdir-devices.js';

const context: CallContext = {
  signal: new AbortController().signal,
  connection: { id: 1, subscribe: () => [], unsubscribe: () => [] },
};

let root: string;
let a: Machine;
let b: Machine;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'memd-memdir-sync-rpc-'));
  a = machine(root, 'a');
  b = machine(root, 'b');
  a.write('style', 'Tabs.');
  await a.scan();
  carry(a, b);
  await b.scan(a);
  await b.scan(a);
  a.write('style', 'Tabs, width 4.');
  b.write('style', 'Spaces.');
  await a.scan();
  await b.scan();
  carryAll(a, b);
  await a.scan(b);
});

afterEach(() => {
  a.close();
  b.close();
  rmSync(root, { recursive: true, force: true });
});

describe('memdirSyncMethods', () => {
  it('lists the open conflicts, of every project or of one named by its cwd', async () => {
    const dispatcher = createDispatcher(memdirSyncMethods(a.sync), fakeLogger());
    expect(dispatcher.methods.sort()).toEqual(['memdir.conflicts', 'memdir.resolve']);
    const all = await dispatcher.dispatch({ jsonrpc: '2.0', id: 1, method: 'memdir.conflicts', params: {} }, context);
    const result = parseAnswer(memdirConflictsResultSchema, (all as { result: unknown }).result, 'memdir.conflicts');
    expect(result).toMatchObject({ device: a.id, syncing: true, conflicts: [{ name: 'style', device: b.id }] });
    const ofCwd = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 2, method: 'memdir.conflicts', params: { project: '/home/user/src/app' } },
      context,
    );
    expect(ofCwd).toMatchObject({ result: { conflicts: [{ project: PROJECT }] } });
    const other = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 3, method: 'memdir.conflicts', params: { project: '-home-user-src-other' } },
      context,
    );
    expect(other).toMatchObject({ result: { conflicts: [] } });
  });

  it('resolves one, and answers NotFound for a memory in no conflict and InvalidParams for a bad keep', async () => {
    const dispatcher = createDispatcher(memdirSyncMethods(a.sync), fakeLogger());
    const bad = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 1, method: 'memdir.resolve', params: { project: PROJECT, name: 'style', keep: 'both' } },
      context,
    );
    expect(bad).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    const resolved = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 2, method: 'memdir.resolve', params: { project: PROJECT, name: 'style', keep: 'local' } },
      context,
    );
    const result = parseAnswer(memdirResolveResultSchema, (resolved as { result: unknown }).result, 'memdir.resolve');
    expect(result).toEqual({
      project: PROJECT,
      scope: 'private',
      name: 'style',
      device: b.id,
      kept: 'local',
      etag: etagOf(a.read('style') as string),
      remaining: 0,
    });
    const again = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 3, method: 'memdir.resolve', params: { project: PROJECT, name: 'style', keep: 'local' } },
      context,
    );
    expect(again).toMatchObject({ error: { code: ErrorCode.NotFound } });
  });
});
