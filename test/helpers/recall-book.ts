/** A recall book (daemon/recall/injected.ts) on an in-memory database holding its table. */
import Database from 'better-sqlite3';
import { createInjectedBook, type InjectedBook } from '../../daemon/recall/injected.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';

export function memoryInjectedBook(clock?: () => number): { book: InjectedBook; db: Database.Database } {
  const db = new Database(':memory:');
  const table = MIGRATIONS.find((migration) => migration.name === 'what recall injected in each session');
  if (table === undefined) throw new Error('no recall_injected migration');
  db.exec(table.sql);
  return { book: createInjectedBook(db, clock), db };
}
