import { describe, expect, it } from 'vitest';
import { checkRequest, exceedsDepth, MAX_JSON_DEPTH } from '../../../../shared/protocol/envelope.js';
import { ErrorCode } from '../../../../shared/protocol/errors.js';

function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe('checkRequest', () => {
  it('accepts a request, keeping id and params', () => {
    expect(checkRequest({ jsonrpc: '2.0', id: 1, method: 'daemon.status', params: { a: 1 } })).toEqual({
      ok: true,
      request: { jsonrpc: '2.0', id: 1, method: 'daemon.status', params: { a: 1 } },
    });
  });

  it.each([['abc'], [0], [null], [-1.5]])('accepts the id %j', (id) => {
    const checked = checkRequest({ jsonrpc: '2.0', id, method: 'm' });
    expect(checked).toEqual({ ok: true, request: { jsonrpc: '2.0', id, method: 'm' } });
  });

  it('accepts a notification: no id, no params', () => {
    const checked = checkRequest({ jsonrpc: '2.0', method: 'm' });
    expect(checked).toEqual({ ok: true, request: { jsonrpc: '2.0', method: 'm' } });
    expect(checked.ok && 'id' in checked.request).toBe(false);
  });

  it('drops members that are not part of a request', () => {
    const checked = checkRequest({ jsonrpc: '2.0', id: 1, method: 'm', extra: true });
    expect(checked).toEqual({ ok: true, request: { jsonrpc: '2.0', id: 1, method: 'm' } });
  });

  it.each([[null], ['text'], [42], [true], [[{ jsonrpc: '2.0', method: 'm' }]]])(
    'refuses %j as not an object, with a null id',
    (value) => {
      const checked = checkRequest(value);
      expect(checked.ok).toBe(false);
      if (checked.ok) return;
      expect(checked.response).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.InvalidRequest, data: { kind: 'InvalidRequest' } },
      });
    },
  );

  it.each([[{}], [[1]], [true], [Number.POSITIVE_INFINITY], [Number.NaN]])(
    'refuses the id %j, answering with a null id',
    (id) => {
      const checked = checkRequest({ jsonrpc: '2.0', id, method: 'm' });
      expect(checked).toEqual({
        ok: false,
        response: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: ErrorCode.InvalidRequest,
            message: 'id must be a string, a number or null',
            data: { kind: 'InvalidRequest' },
          },
        },
      });
    },
  );

  const invalid: [string, Record<string, unknown>, string][] = [
    ['no jsonrpc', { id: 7, method: 'm' }, 'jsonrpc must be "2.0"'],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 7, method: 'm' }, 'jsonrpc must be "2.0"'],
    ['jsonrpc as a number', { jsonrpc: 2, id: 7, method: 'm' }, 'jsonrpc must be "2.0"'],
    ['no method', { jsonrpc: '2.0', id: 7 }, 'method must be a non-empty string'],
    ['an empty method', { jsonrpc: '2.0', id: 7, method: '' }, 'method must be a non-empty string'],
    ['a numeric method', { jsonrpc: '2.0', id: 7, method: 5 }, 'method must be a non-empty string'],
    ['a result member', { jsonrpc: '2.0', id: 7, method: 'm', result: 1 }, 'a request carries no result or error'],
    ['an error member', { jsonrpc: '2.0', id: 7, method: 'm', error: {} }, 'a request carries no result or error'],
  ];

  it.each(invalid)('refuses %s with InvalidRequest, echoing the id', (_what, value, message) => {
    expect(checkRequest(value)).toEqual({
      ok: false,
      response: {
        jsonrpc: '2.0',
        id: 7,
        error: { code: ErrorCode.InvalidRequest, message, data: { kind: 'InvalidRequest' } },
      },
    });
  });

  it.each(invalid)('answers an invalid notification (%s) with a null id', (_what, value, message) => {
    const { id: _id, ...notification } = value;
    expect(checkRequest(notification)).toEqual({
      ok: false,
      response: {
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.InvalidRequest, message, data: { kind: 'InvalidRequest' } },
      },
    });
  });

  it.each([[[1, 2]], [null], ['p'], [3]])('refuses params %j with InvalidParams', (params) => {
    const checked = checkRequest({ jsonrpc: '2.0', id: 'x', method: 'm', params });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.response).toMatchObject({
      id: 'x',
      error: { code: ErrorCode.InvalidParams, data: { kind: 'InvalidParams' } },
    });
  });

  it('gives a notification with bad params no response', () => {
    expect(checkRequest({ jsonrpc: '2.0', method: 'm', params: [1] })).toEqual({ ok: false, response: null });
  });
});

describe('exceedsDepth', () => {
  it('is false for scalars', () => {
    for (const value of [null, 1, 'x', true, undefined]) expect(exceedsDepth(value)).toBe(false);
  });

  it('allows arrays and objects nested exactly to the limit', () => {
    expect(exceedsDepth(nestedArrays(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsDepth(nestedObjects(MAX_JSON_DEPTH))).toBe(false);
  });

  it('refuses one level more', () => {
    expect(exceedsDepth(nestedArrays(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsDepth(nestedObjects(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('does not count scalars inside the deepest container as a level', () => {
    let value: unknown = [1, 'x', null];
    for (let i = 1; i < MAX_JSON_DEPTH; i++) value = [value];
    expect(exceedsDepth(value)).toBe(false);
  });

  it('finds a deep branch beside shallow ones, in arrays and objects mixed', () => {
    let deep: unknown = {};
    for (let i = 1; i < 5; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    const value = { a: 1, b: [2, 3], c: { d: deep } };
    // deep has depth 5, c.d puts it at 7.
    expect(exceedsDepth(value, 7)).toBe(false);
    expect(exceedsDepth(value, 6)).toBe(true);
  });

  it('handles a million levels without overflowing the stack', () => {
    const deep = nestedArrays(1_000_000);
    expect(exceedsDepth(deep)).toBe(true);
    // With a limit above the depth, every level is walked: a recursive walk would overflow here.
    expect(exceedsDepth(deep, 2_000_000)).toBe(false);
    expect(exceedsDepth(nestedObjects(1_000_000), 2_000_000)).toBe(false);
  });
});
