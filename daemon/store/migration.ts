import type Database from 'better-sqlite3';

/**
 * One numbered schema migration: its own file so that migrations.ts and migrations-index.ts, which
 * both list migrations, each import the shape without importing the other (a circle).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Columns the migration adds, each only where the table lacks it (after `sql`): SQLite has no
   * ADD COLUMN IF NOT EXISTS, and a database set back to an older version (tests do) runs it again.
   */
  addColumns?: readonly { table: string; column: string; definition: string }[];
  /**
   * A change SQL alone cannot make run-again-safe (a table rebuilt with another primary key, only
   * when it has the old one): run last, in the migration's transaction.
   */
  apply?: (db: Database.Database) => void;
}
