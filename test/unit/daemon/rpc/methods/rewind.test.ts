/** The rewind methods behind the dispatcher: params as the contract has them, results unchanged. */
import { describe, expect, it } from 'vitest';
import type { RewindService } from '../../../../../daemon/memory/rewind/service.js';
import { type CallContext, createDispatcher } from '../../../../../daemon/rpc/dispatch.js';
import { rewindMethods } from '../../../../../daemon/rpc/methods/rewind.js';
import { ErrorCode, RpcError } from '../../../../../shared/protocol/errors.js';
import { fakeLogger } from '../../../../helpers/fake-logger.js';

const context: CallContext = {
  signal: new AbortController().signal,
  connection: { id: 1, subscribe: () => [], unsubscribe: () => [] },
};

function recordingService(calls: unknown[][]): RewindService {
  return {
    list: async (sessionId) => {
      calls.push(['list', sessionId]);
      return { sessionId, cwd: null, checkpoints: [] };
    },
    restore: async (sessionId, messageId, dryRun) => {
      calls.push(['restore', sessionId, messageId, dryRun]);
      return { sessionId, messageId, dryRun: dryRun ?? false, files: [], undoId: null };
    },
    undo: async (undoId, dryRun) => {
      calls.push(['undo', undoId, dryRun]);
      if (undoId === 'gone') throw new RpcError(ErrorCode.NotFound, 'NotFound', 'no undo point gone', { undoId });
      return { undoId, dryRun: dryRun ?? false, files: [] };
    },
  };
}

describe('rewindMethods', () => {
  it('serves the three methods, dryRun false unless asked', async () => {
    const calls: unknown[][] = [];
    const dispatcher = createDispatcher(rewindMethods(recordingService(calls)), fakeLogger());
    expect(dispatcher.methods.sort()).toEqual(['rewind.list', 'rewind.restore', 'rewind.undo']);
    await dispatcher.dispatch({ jsonrpc: '2.0', id: 1, method: 'rewind.list', params: { sessionId: 's' } }, context);
    await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 2, method: 'rewind.restore', params: { sessionId: 's', messageId: 'm' } },
      context,
    );
    await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 3, method: 'rewind.restore', params: { sessionId: 's', messageId: 'm', dryRun: true } },
      context,
    );
    const undo = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 4, method: 'rewind.undo', params: { undoId: 'u' } },
      context,
    );
    expect(calls).toEqual([
      ['list', 's'],
      ['restore', 's', 'm', false],
      ['restore', 's', 'm', true],
      ['undo', 'u', false],
    ]);
    expect(undo).toEqual({ jsonrpc: '2.0', id: 4, result: { undoId: 'u', dryRun: false, files: [] } });
  });

  it('refuses params the contract does not allow, and passes NotFound through', async () => {
    const calls: unknown[][] = [];
    const dispatcher = createDispatcher(rewindMethods(recordingService(calls)), fakeLogger());
    const bad = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 1, method: 'rewind.restore', params: { sessionId: 's' } },
      context,
    );
    expect(bad).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    const gone = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 2, method: 'rewind.undo', params: { undoId: 'gone', dryRun: true } },
      context,
    );
    expect(gone).toMatchObject({ error: { code: ErrorCode.NotFound, data: { kind: 'NotFound', undoId: 'gone' } } });
    expect(calls).toEqual([['undo', 'gone', true]]);
  });
});
