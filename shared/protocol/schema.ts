/**
 * A small validator for what crosses the socket: each schema turns `unknown` into a typed value or
 * fails naming the offending field. Params fail as InvalidParams (the daemon's boundary, the
 * default); a daemon's answer fails as InvalidAnswer (`parseAnswer`), since the client asked
 * nothing wrong. Hand-written because params are small and hot.
 */
import { invalidParams } from './errors.js';

/** How a schema reports a value it refuses: `message` names the path; never returns. */
export type Failure = (message: string, field: string) => never;

/** The daemon's boundary: a request whose params fail is answered InvalidParams, naming the field. */
export const paramsFailure: Failure = (message, field) => {
  throw invalidParams(message, { field });
};

export interface Schema<T> {
  readonly describe: string;
  parse(value: unknown, path: string, fail?: Failure): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

function mismatch(fail: Failure, path: string, expected: string, value: unknown): never {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return fail(`${path} must be ${expected}, got ${got}`, path);
}

export const str = (opts: { minLength?: number; maxLength?: number } = {}): Schema<string> => ({
  describe: 'a string',
  parse(value, path, fail = paramsFailure) {
    if (typeof value !== 'string') return mismatch(fail, path, 'a string', value);
    if (opts.minLength !== undefined && value.length < opts.minLength) {
      mismatch(fail, path, `a string of at least ${opts.minLength} characters`, value);
    }
    if (opts.maxLength !== undefined && value.length > opts.maxLength)
      fail(`${path} must be at most ${opts.maxLength} characters`, path);
    return value;
  },
});

export const int = (opts: { min?: number; max?: number } = {}): Schema<number> => ({
  describe: 'an integer',
  parse(value, path, fail = paramsFailure) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return mismatch(fail, path, 'an integer', value);
    if (opts.min !== undefined && value < opts.min) fail(`${path} must be at least ${opts.min}`, path);
    if (opts.max !== undefined && value > opts.max) fail(`${path} must be at most ${opts.max}`, path);
    return value;
  },
});

/** Any finite number (a cost, a percentage, a ratio): JSON has no NaN or Infinity, so one would be a bug. */
export const num = (): Schema<number> => ({
  describe: 'a number',
  parse(value, path, fail = paramsFailure) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return mismatch(fail, path, 'a number', value);
    return value;
  },
});

export const bool = (): Schema<boolean> => ({
  describe: 'a boolean',
  parse(value, path, fail = paramsFailure) {
    if (typeof value !== 'boolean') return mismatch(fail, path, 'a boolean', value);
    return value;
  },
});

/** Exactly this value (`ok: true`, `name: 'memd'`). */
export const literal = <const T extends string | number | boolean>(expected: T): Schema<T> => ({
  describe: JSON.stringify(expected),
  parse(value, path, fail = paramsFailure) {
    if (value !== expected) return mismatch(fail, path, JSON.stringify(expected), value);
    return expected;
  },
});

export const oneOf = <const T extends readonly string[]>(...choices: T): Schema<T[number]> => ({
  describe: `one of ${choices.join(', ')}`,
  parse(value, path, fail = paramsFailure) {
    if (typeof value !== 'string' || !choices.includes(value))
      return mismatch(fail, path, `one of ${choices.join(', ')}`, value);
    return value;
  },
});

export const arrayOf = <T>(item: Schema<T>, opts: { minItems?: number; maxItems?: number } = {}): Schema<T[]> => ({
  describe: `an array of ${item.describe}`,
  parse(value, path, fail = paramsFailure) {
    if (!Array.isArray(value)) return mismatch(fail, path, `an array of ${item.describe}`, value);
    if (opts.minItems !== undefined && value.length < opts.minItems)
      fail(`${path} must have at least ${opts.minItems} items`, path);
    if (opts.maxItems !== undefined && value.length > opts.maxItems)
      fail(`${path} must have at most ${opts.maxItems} items`, path);
    return value.map((element, index) => item.parse(element, `${path}[${index}]`, fail));
  },
});

/** A plain object used as a map (`jobs` by state): every value checked, any key taken. */
export const recordOf = <T>(item: Schema<T>): Schema<Record<string, T>> => ({
  describe: `an object of ${item.describe}`,
  parse(value, path, fail = paramsFailure) {
    if (!isPlainObject(value)) return mismatch(fail, path, `an object of ${item.describe}`, value);
    return Object.fromEntries(
      Object.entries(value).map(([key, element]) => [key, item.parse(element, `${path}.${key}`, fail)]),
    );
  },
});

/** A value passed on unchecked, where the type itself says `unknown` (a tool call's input). */
export const anyValue = (): Schema<unknown> => ({
  describe: 'any value',
  parse(value) {
    return value;
  },
});

/** Marks a field optional: absent (or undefined) passes; null does not. */
export interface OptionalSchema<T> extends Schema<T | undefined> {
  readonly optional: true;
}

export const optional = <T>(inner: Schema<T>): OptionalSchema<T> => ({
  optional: true,
  describe: inner.describe,
  parse(value, path, fail = paramsFailure) {
    return value === undefined ? undefined : inner.parse(value, path, fail);
  },
});

/**
 * A field an older daemon did not send: absent, it reads as `fallback` (what that daemon meant),
 * so that the parsed value has the field the type promises.
 */
export const withDefault = <T>(inner: Schema<T>, fallback: T): Schema<T> => ({
  describe: inner.describe,
  parse(value, path, fail = paramsFailure) {
    return value === undefined ? fallback : inner.parse(value, path, fail);
  },
});

/** The inner schema's value, or null. */
export const nullable = <T>(inner: Schema<T>): Schema<T | null> => ({
  describe: `${inner.describe} or null`,
  parse(value, path, fail = paramsFailure) {
    return value === null ? null : inner.parse(value, path, fail);
  },
});

type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = Exclude<keyof S, RequiredKeys<S>>;
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
  [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined>;
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The shape's fields (`keys`, its own) of `record`, parsed into `out`; absent optional fields left out. */
function parseFields(
  keys: readonly string[],
  shape: Shape,
  record: Record<string, unknown>,
  path: string,
  fail: Failure,
  out: Record<string, unknown>,
): Record<string, unknown> {
  for (const key of keys) {
    const parsed = (shape[key] as Schema<unknown>).parse(record[key], `${path}.${key}`, fail);
    if (parsed !== undefined) out[key] = parsed;
  }
  return out;
}

/** A plain object with exactly these keys: unknown keys are rejected so that typos surface. */
export const object = <S extends Shape>(shape: S): Schema<ObjectOf<S>> => {
  const keys = Object.keys(shape);
  return {
    describe: 'an object',
    parse(value, path, fail = paramsFailure) {
      if (!isPlainObject(value)) return mismatch(fail, path, 'an object', value);
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(shape, key)) fail(`${path} has an unknown field "${key}"`, `${path}.${key}`);
      }
      return parseFields(keys, shape, value, path, fail, {}) as ObjectOf<S>;
    },
  };
};

/**
 * An object of a daemon's answer: these fields checked, any other kept as it came. A newer daemon
 * may send fields this client does not know; it must still read the ones it does.
 *
 * Parsed in place: the object itself is returned, with defaults filled in and its fields replaced
 * by their parsed values, so give it one of your own (an answer fresh from JSON.parse). Copying
 * every object of a 50-session page cost `memctl sessions` about 8 ms of its start (issue 34).
 */
export const looseObject = <S extends Shape>(shape: S): Schema<ObjectOf<S>> => {
  const keys = Object.keys(shape);
  return {
    describe: 'an object',
    parse(value, path, fail = paramsFailure) {
      if (!isPlainObject(value)) return mismatch(fail, path, 'an object', value);
      return parseFields(keys, shape, value, path, fail, value) as ObjectOf<S>;
    },
  };
};

/** Either of two shapes; the first that parses wins, else the first one's error. */
export const union = <A, B>(first: Schema<A>, second: Schema<B>): Schema<A | B> => ({
  describe: `${first.describe} or ${second.describe}`,
  parse(value, path, fail = paramsFailure) {
    try {
      return first.parse(value, path, fail);
    } catch (firstError) {
      try {
        return second.parse(value, path, fail);
      } catch {
        throw firstError;
      }
    }
  },
});

/** An answer or event of the daemon that lacks what the client reads; the message names the field. */
export class InvalidAnswer extends Error {
  override name = 'InvalidAnswer';
  constructor(
    message: string,
    /** The path that failed (`result.threshold.state`). */
    readonly field: string,
  ) {
    super(message);
  }
}

/** Failures of a daemon's answer: they say whose answer it was, and are not InvalidParams. */
export function answerFailure(source: string): Failure {
  return (message, field) => {
    throw new InvalidAnswer(`memd's ${source} is not what this client reads: ${message}`, field);
  };
}

/** A method's result, checked: throws InvalidAnswer (`memd's answer to sessions.get … result.tokens must be …`). */
export function parseAnswer<T>(schema: Schema<T>, value: unknown, method: string): T {
  return schema.parse(value, 'result', answerFailure(`answer to ${method}`));
}

/** A method's result when it is one, else null: for a reader that has something else to show (a status line, raw JSON). */
export function answerOrNull<T>(schema: Schema<T>, value: unknown, method: string): T | null {
  try {
    return parseAnswer(schema, value, method);
  } catch (error) {
    if (error instanceof InvalidAnswer) return null;
    throw error;
  }
}

/** An event's payload, checked: throws InvalidAnswer naming the topic. */
export function parseEvent<T>(schema: Schema<T>, value: unknown, topic: string): T {
  return schema.parse(value, 'event', answerFailure(`${topic} event`));
}
