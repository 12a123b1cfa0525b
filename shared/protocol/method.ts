/** A method's typed descriptor (methods.ts lists them): its name, its params schema and its result type. */
import { type Schema, str } from './schema.js';

export interface MethodDescriptor<P, R> {
  readonly name: string;
  readonly params: Schema<P>;
  /** Phantom field: never set, only carries the result type to the client. */
  readonly result?: R;
}

export function method<R>() {
  return <P>(name: string, params: Schema<P>): MethodDescriptor<P, R> => ({ name, params });
}

/** A project folder name (`-home-user-src-app`) or the project's absolute cwd. */
export const projectParam = str({ minLength: 1, maxLength: 4_096 });
