/**
 * One numbered schema migration: its own file so that migrations.ts and migrations-index.ts, which
 * both list migrations, each import the shape without importing the other (a circle).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
