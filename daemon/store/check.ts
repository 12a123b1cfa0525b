/** `memd --check-db`: a read-only integrity check that `memctl doctor` runs in a child process. */

import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

export interface DbCheck {
  path: string;
  exists: boolean;
  ok: boolean;
  schemaVersion: number | null;
  problems: string[];
}

export function checkDatabase(path: string): DbCheck {
  if (!existsSync(path)) return { path, exists: false, ok: true, schemaVersion: null, problems: [] };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    const problems = rows.map((row) => row.integrity_check).filter((line) => line !== 'ok');
    const schemaVersion = db.pragma('user_version', { simple: true }) as number;
    return { path, exists: true, ok: problems.length === 0, schemaVersion, problems };
  } catch (error) {
    return { path, exists: true, ok: false, schemaVersion: null, problems: [(error as Error).message] };
  } finally {
    db?.close();
  }
}
