/**
 * A small validator for RPC params: each schema turns `unknown` into a typed value or throws
 * InvalidParams naming the offending field. Hand-written because params are small and hot.
 */
import { invalidParams } from './errors.js';

export interface Schema<T> {
  readonly describe: string;
  parse(value: unknown, path: string): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

function fail(path: string, expected: string, value: unknown): never {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  throw invalidParams(`${path} must be ${expected}, got ${got}`, { field: path });
}

export const str = (opts: { minLength?: number; maxLength?: number } = {}): Schema<string> => ({
  describe: 'a string',
  parse(value, path) {
    if (typeof value !== 'string') fail(path, 'a string', value);
    if (opts.minLength !== undefined && value.length < opts.minLength) {
      fail(path, `a string of at least ${opts.minLength} characters`, value);
    }
    if (opts.maxLength !== undefined && value.length > opts.maxLength) {
      throw invalidParams(`${path} must be at most ${opts.maxLength} characters`, { field: path });
    }
    return value;
  },
});

export const int = (opts: { min?: number; max?: number } = {}): Schema<number> => ({
  describe: 'an integer',
  parse(value, path) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail(path, 'an integer', value);
    if (opts.min !== undefined && value < opts.min) {
      throw invalidParams(`${path} must be at least ${opts.min}`, { field: path });
    }
    if (opts.max !== undefined && value > opts.max) {
      throw invalidParams(`${path} must be at most ${opts.max}`, { field: path });
    }
    return value;
  },
});

export const bool = (): Schema<boolean> => ({
  describe: 'a boolean',
  parse(value, path) {
    if (typeof value !== 'boolean') fail(path, 'a boolean', value);
    return value;
  },
});

export const oneOf = <const T extends readonly string[]>(...choices: T): Schema<T[number]> => ({
  describe: `one of ${choices.join(', ')}`,
  parse(value, path) {
    if (typeof value !== 'string' || !choices.includes(value)) fail(path, `one of ${choices.join(', ')}`, value);
    return value;
  },
});

export const arrayOf = <T>(item: Schema<T>, opts: { minItems?: number; maxItems?: number } = {}): Schema<T[]> => ({
  describe: `an array of ${item.describe}`,
  parse(value, path) {
    if (!Array.isArray(value)) fail(path, `an array of ${item.describe}`, value);
    if (opts.minItems !== undefined && value.length < opts.minItems) {
      throw invalidParams(`${path} must have at least ${opts.minItems} items`, { field: path });
    }
    if (opts.maxItems !== undefined && value.length > opts.maxItems) {
      throw invalidParams(`${path} must have at most ${opts.maxItems} items`, { field: path });
    }
    return value.map((element, index) => item.parse(element, `${path}[${index}]`));
  },
});

/** Marks a field optional: absent (or undefined) passes; null does not. */
export interface OptionalSchema<T> extends Schema<T | undefined> {
  readonly optional: true;
}

export const optional = <T>(inner: Schema<T>): OptionalSchema<T> => ({
  optional: true,
  describe: inner.describe,
  parse(value, path) {
    return value === undefined ? undefined : inner.parse(value, path);
  },
});

/** The inner schema's value, or null. */
export const nullable = <T>(inner: Schema<T>): Schema<T | null> => ({
  describe: `${inner.describe} or null`,
  parse(value, path) {
    return value === null ? null : inner.parse(value, path);
  },
});

type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = Exclude<keyof S, RequiredKeys<S>>;
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
  [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined>;
};

/** A plain object with exactly these keys: unknown keys are rejected so that typos surface. */
export const object = <S extends Shape>(shape: S): Schema<ObjectOf<S>> => ({
  describe: 'an object',
  parse(value, path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'an object', value);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!Object.hasOwn(shape, key)) {
        throw invalidParams(`${path} has an unknown field "${key}"`, { field: `${path}.${key}` });
      }
    }
    const out: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries(shape)) {
      const parsed = schema.parse(record[key], `${path}.${key}`);
      if (parsed !== undefined) out[key] = parsed;
    }
    return out as ObjectOf<S>;
  },
});

/** Either of two object shapes; the first that parses wins, else the first one's error. */
export const union = <A, B>(first: Schema<A>, second: Schema<B>): Schema<A | B> => ({
  describe: `${first.describe} or ${second.describe}`,
  parse(value, path) {
    try {
      return first.parse(value, path);
    } catch (firstError) {
      try {
        return second.parse(value, path);
      } catch {
        throw firstError;
      }
    }
  },
});
