/**
 * One database handle that outlives its connection. Every domain keeps the `db` it was given at
 * start (and statements prepared from it), so when the file is deleted, replaced or corrupted
 * while memd runs, the store swaps the connection underneath instead of restarting every
 * service: statements prepared through the handle are prepared again on the new connection the
 * first time they are used after a swap. SQLite errors that mean the file is broken are reported
 * (after the throwing call returns) so that the store can check it at once.
 */
import type Database from 'better-sqlite3';

type Db = Database.Database;
type Statement = Database.Statement;

/** better-sqlite3's codes for a broken or vanished file (the IO ones include a file deleted under WAL). */
const BROKEN_FILE_CODES = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT_VTAB',
  'SQLITE_IOERR',
  'SQLITE_READONLY_DBMOVED',
]);

export function isBrokenFileError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    (BROKEN_FILE_CODES.has(code) || code.startsWith('SQLITE_IOERR_') || code.startsWith('SQLITE_CORRUPT'))
  );
}

export interface ReopenableDb {
  /** The handle every domain holds. */
  readonly db: Db;
  /** The connection the handle uses now. */
  current(): Db;
  /** Use `next` from now on; returns the connection it replaces (the caller closes it). */
  swap(next: Db): Db;
}

export function createReopenableDb(initial: Db, onBrokenFile: (error: unknown) => void): ReopenableDb {
  let connection = initial;
  let generation = 0;
  const guarded = <T>(call: () => T): T => {
    try {
      return call();
    } catch (error) {
      if (isBrokenFileError(error)) queueMicrotask(() => onBrokenFile(error));
      throw error;
    }
  };

  const statementHandle = (source: string): Statement => {
    let prepared: Statement | undefined;
    let preparedIn = -1;
    // pluck(), raw(), expand(), safeIntegers() set modes on the statement: replayed after a swap.
    const modes: [PropertyKey, unknown[]][] = [];
    const real = (): Statement => {
      if (prepared === undefined || preparedIn !== generation) {
        const fresh = guarded(() => connection.prepare(source));
        for (const [name, args] of modes) (Reflect.get(fresh, name) as (...a: unknown[]) => unknown).apply(fresh, args);
        prepared = fresh;
        preparedIn = generation;
      }
      return prepared;
    };
    real();
    const handle: Statement = new Proxy({} as Statement, {
      get(_target, property) {
        const statement = real();
        const value: unknown = Reflect.get(statement, property, statement);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result: unknown = guarded(() => (value as (...a: unknown[]) => unknown).apply(statement, args));
          if (result !== statement) return result;
          modes.push([property, args]);
          return handle;
        };
      },
    });
    return handle;
  };

  type Transaction = ((...args: unknown[]) => unknown) &
    Record<'deferred' | 'immediate' | 'exclusive', (...args: unknown[]) => unknown>;
  const VARIANTS = ['deferred', 'immediate', 'exclusive'] as const;
  const transactionHandle = (fn: (...args: unknown[]) => unknown): Transaction => {
    let wrapped: Transaction | undefined;
    let wrappedIn = -1;
    const real = (): Transaction => {
      if (wrapped === undefined || wrappedIn !== generation) {
        wrapped = connection.transaction(fn) as unknown as Transaction;
        wrappedIn = generation;
      }
      return wrapped;
    };
    const run = ((...args: unknown[]) => guarded(() => real()(...args))) as Transaction;
    for (const variant of VARIANTS) run[variant] = (...args: unknown[]) => guarded(() => real()[variant](...args));
    return run;
  };

  const db = new Proxy({} as Db, {
    get(_target, property) {
      if (property === 'prepare') return statementHandle;
      if (property === 'transaction') return transactionHandle;
      const value: unknown = Reflect.get(connection, property, connection);
      if (typeof value !== 'function') return value;
      const bound = connection;
      return (...args: unknown[]) => guarded(() => (value as (...a: unknown[]) => unknown).apply(bound, args));
    },
  });

  return {
    db,
    current: () => connection,
    swap(next) {
      const previous = connection;
      connection = next;
      generation += 1;
      return previous;
    },
  };
}
