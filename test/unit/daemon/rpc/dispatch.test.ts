/** The dispatcher alone: params validation and error mapping, without a socket. */
import { describe, expect, it, vi } from 'vitest';
import { type CallContext, createDispatcher, handle, SLOW_REQUEST_MS } from '../../../../daemon/rpc/dispatch.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import type { MethodDescriptor } from '../../../../shared/protocol/methods.js';
import { object, type Schema, str } from '../../../../shared/protocol/schema.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

const descriptor = <P>(name: string, params: Schema<P>): MethodDescriptor<P, unknown> => ({ name, params });

function context(signal = new AbortController().signal): CallContext {
  return { signal, connection: { id: 1, subscribe: () => [], unsubscribe: () => [] } };
}

describe('createDispatcher', () => {
  it('lists the methods it serves and runs them with parsed params', async () => {
    const dispatcher = createDispatcher(
      [handle(descriptor('test.greet', object({ name: str() })), (params) => `hi ${params.name}`)],
      fakeLogger(),
    );
    expect(dispatcher.methods).toEqual(['test.greet']);
    const response = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 1, method: 'test.greet', params: { name: 'ada' } },
      context(),
    );
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, result: 'hi ada' });
  });

  it('does not run a handler whose params fail the schema', async () => {
    let ran = false;
    const dispatcher = createDispatcher(
      [
        handle(descriptor('test.greet', object({ name: str() })), () => {
          ran = true;
        }),
      ],
      fakeLogger(),
    );
    const response = await dispatcher.dispatch({ jsonrpc: '2.0', id: 1, method: 'test.greet', params: {} }, context());
    expect(response).toMatchObject({ error: { code: ErrorCode.InvalidParams, data: { field: 'params.name' } } });
    expect(ran).toBe(false);
  });

  it('answers nothing for a notification, even of an unknown method', async () => {
    const dispatcher = createDispatcher([handle(descriptor('test.noop', object({})), () => 1)], fakeLogger());
    expect(await dispatcher.dispatch({ jsonrpc: '2.0', method: 'test.noop' }, context())).toBeNull();
    expect(await dispatcher.dispatch({ jsonrpc: '2.0', method: 'no.such' }, context())).toBeNull();
  });

  it('logs a plain error with its stack and answers InternalError', async () => {
    const log = fakeLogger();
    const failure = new Error('boom');
    const dispatcher = createDispatcher(
      [
        handle(descriptor('test.fail', object({})), () => {
          throw failure;
        }),
      ],
      log,
    );
    const response = await dispatcher.dispatch({ jsonrpc: '2.0', id: 'x', method: 'test.fail' }, context());
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: {
        code: ErrorCode.InternalError,
        message: 'internal error; the daemon log has the details',
        data: { kind: 'InternalError' },
      },
    });
    expect(log.at('error')).toHaveLength(1);
    expect(log.at('error')[0]?.fields?.error).toBe(failure);
  });

  it('answers Cancelled, and logs nothing, when a cancelled handler throws', async () => {
    const log = fakeLogger();
    const controller = new AbortController();
    const dispatcher = createDispatcher(
      [
        handle(descriptor('test.abortable', object({})), (_params, ctx) => {
          controller.abort();
          throw ctx.signal.reason;
        }),
      ],
      log,
    );
    const response = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 2, method: 'test.abortable' },
      context(controller.signal),
    );
    expect(response).toMatchObject({ id: 2, error: { code: ErrorCode.Cancelled, data: { kind: 'Cancelled' } } });
    expect(log.lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
  });

  it('keeps the RpcError a cancelled handler chose to throw', async () => {
    const controller = new AbortController();
    controller.abort();
    const dispatcher = createDispatcher(
      [
        handle(descriptor('test.locked', object({})), () => {
          throw new RpcError(ErrorCode.Locked, 'Locked', 'held elsewhere');
        }),
      ],
      fakeLogger(),
    );
    const response = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: 3, method: 'test.locked' },
      context(controller.signal),
    );
    expect(response).toMatchObject({ error: { code: ErrorCode.Locked } });
  });

  it('names a request that took over 500 ms in the log, and no quick one', async () => {
    vi.useFakeTimers();
    try {
      const log = fakeLogger();
      const dispatcher = createDispatcher(
        [
          handle(
            descriptor('test.slow', object({})),
            () => new Promise((resolve) => setTimeout(() => resolve('done'), SLOW_REQUEST_MS + 100)),
          ),
          handle(descriptor('test.quick', object({})), () => 'done'),
        ],
        log,
      );
      const slow = dispatcher.dispatch({ jsonrpc: '2.0', id: 1, method: 'test.slow' }, context());
      await vi.advanceTimersByTimeAsync(SLOW_REQUEST_MS + 100);
      expect(await slow).toMatchObject({ result: 'done' });
      await dispatcher.dispatch({ jsonrpc: '2.0', id: 2, method: 'test.quick' }, context());
      expect(log.at('warn')).toEqual([
        { level: 'warn', msg: 'a request took long', fields: { method: 'test.slow', ms: SLOW_REQUEST_MS + 100 } },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
