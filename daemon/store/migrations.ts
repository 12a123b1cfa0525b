/**
 * Numbered schema migrations. `user_version` holds the schema version; each migration runs in
 * its own transaction. Everything stored is derivable from transcripts, so a database from a
 * newer memd is rebuilt rather than guessed at.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'daemon metadata',
    sql: `
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((max, migration) => Math.max(max, migration.version), 0);
