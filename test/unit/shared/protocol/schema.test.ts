import { describe, expect, it } from 'vitest';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import {
  arrayOf,
  bool,
  int,
  object,
  oneOf,
  optional,
  type Schema,
  str,
  union,
} from '../../../../shared/protocol/schema.js';

/** The InvalidParams error a schema throws for `value`, or a failure when it parses. */
function rejection(schema: Schema<unknown>, value: unknown, path = 'params'): RpcError {
  try {
    schema.parse(value, path);
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError);
    const rpcError = error as RpcError;
    expect(rpcError.code).toBe(ErrorCode.InvalidParams);
    expect(rpcError.kind).toBe('InvalidParams');
    return rpcError;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be rejected`);
}

describe('object', () => {
  const schema = object({ name: str(), nested: optional(object({ depth: int() })) });

  it('parses exactly its keys', () => {
    expect(schema.parse({ name: 'a', nested: { depth: 2 } }, 'params')).toEqual({ name: 'a', nested: { depth: 2 } });
  });

  it('leaves absent optional keys out of the result', () => {
    const parsed = schema.parse({ name: 'a' }, 'params');
    expect(parsed).toEqual({ name: 'a' });
    expect(Object.keys(parsed)).toEqual(['name']);
  });

  it('rejects an unknown key, naming its path', () => {
    const error = rejection(schema, { name: 'a', nmae: 'b' });
    expect(error.message).toBe('params has an unknown field "nmae"');
    expect(error.data).toEqual({ kind: 'InvalidParams', field: 'params.nmae' });
  });

  it('rejects an unknown key in a nested object with the full path', () => {
    const error = rejection(schema, { name: 'a', nested: { depth: 1, extra: 0 } });
    expect(error.data.field).toBe('params.nested.extra');
  });

  it('rejects __proto__ as an unknown key', () => {
    expect(rejection(schema, JSON.parse('{"name":"a","__proto__":{"x":1}}')).data.field).toBe('params.__proto__');
  });

  it('rejects a missing required key, naming it', () => {
    const error = rejection(schema, {});
    expect(error.message).toBe('params.name must be a string, got undefined');
    expect(error.data.field).toBe('params.name');
  });

  it.each([
    [null, 'null'],
    [[], 'array'],
    ['s', 'string'],
    [1, 'number'],
  ])('rejects %j as not an object', (value, got) => {
    expect(rejection(schema, value).message).toBe(`params must be an object, got ${got}`);
  });
});

describe('optional', () => {
  const schema = object({ flag: optional(bool()) });

  it('accepts an absent or undefined field', () => {
    expect(schema.parse({}, 'params')).toEqual({});
    expect(schema.parse({ flag: undefined }, 'params')).toEqual({});
  });

  it('still validates a present field, and null is not absent', () => {
    expect(schema.parse({ flag: false }, 'params')).toEqual({ flag: false });
    expect(rejection(schema, { flag: null }).message).toBe('params.flag must be a boolean, got null');
    expect(rejection(schema, { flag: 'yes' }).data.field).toBe('params.flag');
  });
});

describe('int', () => {
  const schema = int({ min: 1, max: 10 });

  it('accepts the bounds themselves', () => {
    expect(schema.parse(1, 'n')).toBe(1);
    expect(schema.parse(10, 'n')).toBe(10);
  });

  it('rejects values outside the bounds', () => {
    expect(rejection(schema, 0, 'n').message).toBe('n must be at least 1');
    expect(rejection(schema, 11, 'n').message).toBe('n must be at most 10');
  });

  it.each([[1.5], ['3'], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 53], [null]])(
    'rejects %j as not an integer',
    (value) => {
      expect(rejection(int(), value, 'n').message).toMatch(/^n must be an integer, got /);
    },
  );
});

describe('str', () => {
  it('enforces minLength and maxLength', () => {
    const schema = str({ minLength: 2, maxLength: 3 });
    expect(schema.parse('ab', 's')).toBe('ab');
    expect(schema.parse('abc', 's')).toBe('abc');
    expect(rejection(schema, 'a', 's').message).toContain('at least 2 characters');
    expect(rejection(schema, 'abcd', 's').message).toBe('s must be at most 3 characters');
    expect(rejection(schema, 5, 's').message).toBe('s must be a string, got number');
  });
});

describe('oneOf', () => {
  const schema = oneOf('private', 'team');

  it('accepts each choice', () => {
    expect(schema.parse('private', 'scope')).toBe('private');
    expect(schema.parse('team', 'scope')).toBe('team');
  });

  it('rejects anything else, listing the choices', () => {
    expect(rejection(schema, 'public', 'scope').message).toBe('scope must be one of private, team, got string');
    expect(rejection(schema, 'Team', 'scope').data.field).toBe('scope');
    expect(rejection(schema, null, 'scope').message).toContain('got null');
  });
});

describe('arrayOf', () => {
  const schema = arrayOf(oneOf('a', 'b'), { minItems: 1, maxItems: 2 });

  it('parses each item', () => {
    expect(schema.parse(['a', 'b'], 'topics')).toEqual(['a', 'b']);
  });

  it('enforces minItems and maxItems', () => {
    expect(rejection(schema, [], 'topics').message).toBe('topics must have at least 1 items');
    expect(rejection(schema, ['a', 'a', 'b'], 'topics').message).toBe('topics must have at most 2 items');
  });

  it('names the index of a bad item', () => {
    const error = rejection(schema, ['a', 'c'], 'topics');
    expect(error.data.field).toBe('topics[1]');
    expect(error.message).toContain('topics[1] must be one of a, b');
  });

  it('rejects a non-array', () => {
    expect(rejection(schema, 'a', 'topics').message).toContain('topics must be an array of one of a, b, got string');
  });
});

describe('union', () => {
  const schema = union(object({ sessionId: str() }), object({ model: str(), tokens: int({ min: 0 }) }));

  it('accepts either shape', () => {
    expect(schema.parse({ sessionId: 's' }, 'params')).toEqual({ sessionId: 's' });
    expect(schema.parse({ model: 'm', tokens: 5 }, 'params')).toEqual({ model: 'm', tokens: 5 });
  });

  it("rejects a value neither shape accepts with the first shape's error", () => {
    expect(rejection(schema, { model: 'm', tokens: -1 }).message).toBe('params has an unknown field "model"');
    expect(rejection(schema, {}).data.field).toBe('params.sessionId');
  });

  it('rejects a mix of both shapes', () => {
    rejection(schema, { sessionId: 's', model: 'm', tokens: 1 });
  });

  it('describes both alternatives', () => {
    expect(union(str(), int()).describe).toBe('a string or an integer');
  });
});
