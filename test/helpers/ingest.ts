/**
 * Helpers for transcript-ingest tests: fixture copies, a canonical dump of the index, and the
 * index a clean ingest of the same files produces (the reference every fault test compares with).
 */

import { appendFileSync, chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { createBus } from '../../daemon/bus/bus.js';
import { createIngestor, type Ingestor, type IngestorDeps } from '../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../daemon/ingest/scan.js';
import { openStore } from '../../daemon/store/db.js';
import { selectEntries } from '../../daemon/store/entry-row.js';
import { fakeLogger } from './fake-logger.js';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures/claude-code');

export const SCENARIOS = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function makeWritable(path: string): void {
  const stats = statSync(path);
  chmodSync(path, stats.isDirectory() ? 0o700 : 0o600);
  if (stats.isDirectory()) for (const name of readdirSync(path)) makeWritable(join(path, name));
}

/** Copies the `projects/` trees of the given scenarios (all by default) into `projectsDir`. */
export function copyFixtureProjects(projectsDir: string, scenarios: readonly string[] = SCENARIOS): void {
  for (const scenario of scenarios) cpSync(join(FIXTURES, scenario, 'projects'), projectsDir, { recursive: true });
  // The fixtures are read-only; tests append to, truncate and replace their copies.
  makeWritable(projectsDir);
}

export interface FileDump {
  committedOffset: number;
  gone: boolean;
  entries: Record<string, unknown>[];
  bad: Record<string, unknown>[];
}

/** The index by file path relative to the projects dir, without run-specific fields. */
export type IndexDump = Record<string, FileDump>;

interface DumpFileRow {
  id: number;
  path: string;
  committed_offset: number;
  gone: number;
  entries: number;
  bad_lines: number;
}

export function dumpIndex(db: Database.Database, projectsDir: string): IndexDump {
  const files = db
    .prepare('SELECT id, path, committed_offset, gone, entries, bad_lines FROM files ORDER BY path')
    .all() as DumpFileRow[];
  const entries = db.prepare(selectEntries('WHERE e.file_id = ? ORDER BY e.offset'));
  const bad = db.prepare('SELECT offset, length, reason FROM bad_lines WHERE file_id = ? ORDER BY offset');
  const dump: IndexDump = {};
  for (const file of files) {
    const rows = (entries.all(file.id) as Record<string, unknown>[]).map(({ file_id: _id, ...row }) => row);
    const badRows = bad.all(file.id) as Record<string, unknown>[];
    // The counters on the files row must agree with the rows themselves.
    if (rows.length !== file.entries || badRows.length !== file.bad_lines) {
      throw new Error(
        `${file.path}: counters ${file.entries}/${file.bad_lines} but ${rows.length}/${badRows.length} rows`,
      );
    }
    dump[relative(projectsDir, file.path)] = {
      committedOffset: file.committed_offset,
      gone: file.gone === 1,
      entries: rows,
      bad: badRows,
    };
  }
  return dump;
}

/** Dumps a database file read-only (a running daemon may hold it open). */
export function dumpDatabase(dbPath: string, projectsDir: string): IndexDump {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.transaction(() => dumpIndex(db, projectsDir))();
  } finally {
    db.close();
  }
}

/** Only the files that still exist: what a clean ingest can be compared with. */
export function present(dump: IndexDump): IndexDump {
  return Object.fromEntries(Object.entries(dump).filter(([, file]) => !file.gone));
}

/** An ingestor over `projectsDir` that tells nobody: a bus without listeners, a quiet log, the real clock. */
export function quietIngestor(
  db: Database.Database,
  projectsDir: string,
  options: Partial<IngestorDeps> = {},
): Ingestor {
  return createIngestor({
    db,
    bus: createBus(() => {}),
    log: fakeLogger(),
    clock: () => Date.now(),
    projectsDir,
    onSessionsChanged: () => {},
    ...options,
  });
}

/** The index a fresh ingest of the files now under `projectsDir` produces. */
export async function cleanIngest(projectsDir: string): Promise<IndexDump> {
  const dir = mkdtempSync(join(tmpdir(), 'memd-clean-'));
  const store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  try {
    const ingestor = quietIngestor(store.db, projectsDir);
    ingestor.backfill(await scanTranscripts(projectsDir), []);
    await ingestor.idle();
    return dumpIndex(store.db, projectsDir);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sizes of every transcript under `projectsDir`, by path. */
export async function transcriptSizes(projectsDir: string): Promise<Map<string, number>> {
  return new Map((await scanTranscripts(projectsDir)).map((file) => [file.path, file.size]));
}

/**
 * Appends a user prompt to a main transcript, chained to its last entry on the main thread
 * (bookkeeping lines such as `mode` carry no uuid): a live line whose session's triggers memd
 * looks at again.
 */
export function appendPrompt(transcript: string, sessionId: string, text: string, uuid: string): void {
  const entries = readFileSync(transcript, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { uuid?: string; isSidechain?: boolean });
  const last = entries.findLast((entry) => typeof entry.uuid === 'string' && entry.isSidechain !== true);
  const entry = {
    parentUuid: last?.uuid ?? null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content: text },
    uuid,
    timestamp: new Date().toISOString(),
    sessionId,
  };
  appendFileSync(transcript, `${JSON.stringify(entry)}\n`);
}
