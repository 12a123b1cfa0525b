import { describe, expect, it } from 'vitest';
import { ErrorCode, errorCodeName, invalidParams, RpcError } from '../../../../shared/protocol/errors.js';

describe('ErrorCode', () => {
  it('holds the codes of DESIGN.md §3', () => {
    expect(ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ShuttingDown: -32001,
      NotReady: -32002,
      VersionMismatch: -32003,
      TooManyConnections: -32004,
      Busy: -32005,
      Cancelled: -32800,
      NotFound: 1001,
      Conflict: 1002,
      Locked: 1003,
      PathRejected: 1004,
      LlmUnavailable: 1005,
      JobFailed: 1006,
      InvalidTranscript: 1007,
      IoError: 1008,
      TooLarge: 1009,
      TimedOut: 1010,
    });
  });

  it('names a code, and nothing for an unknown one', () => {
    expect(errorCodeName(-32800)).toBe('Cancelled');
    expect(errorCodeName(1004)).toBe('PathRejected');
    expect(errorCodeName(42)).toBeUndefined();
  });
});

describe('RpcError', () => {
  it('puts kind into data and serializes without a stack', () => {
    const error = new RpcError(ErrorCode.NotFound, 'NotFound', 'no such session', { sessionId: 's' });
    expect(error.toJSON()).toEqual({
      code: 1001,
      message: 'no such session',
      data: { sessionId: 's', kind: 'NotFound' },
    });
    expect(JSON.stringify(error)).not.toContain('stack');
  });

  it('lets kind win over a data.kind of the caller', () => {
    expect(new RpcError(1, 'Real', 'm', { kind: 'Fake' }).data.kind).toBe('Real');
  });

  it('round-trips through its wire object', () => {
    const original = new RpcError(ErrorCode.Locked, 'Locked', 'held', { owner: 'x' });
    const back = RpcError.fromObject(original.toJSON());
    expect(back).toBeInstanceOf(RpcError);
    expect(back.toJSON()).toEqual(original.toJSON());
  });

  it('names the kind from the code when the wire object has no data', () => {
    expect(RpcError.fromObject({ code: -32001, message: 'bye' }).kind).toBe('ShuttingDown');
    expect(RpcError.fromObject({ code: 77, message: '?' }).kind).toBe('Unknown');
  });

  it('makes InvalidParams errors', () => {
    expect(invalidParams('bad', { field: 'params.x' }).toJSON()).toEqual({
      code: -32602,
      message: 'bad',
      data: { field: 'params.x', kind: 'InvalidParams' },
    });
  });
});
