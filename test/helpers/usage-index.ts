/**
 * An index holding API responses, for the usage book's unit tests: `files` and `entries` rows
 * written straight into a real database, as ingest would have committed them (each file read to its
 * end), so that the book's follower folds them. A file of another machine (issue 35) carries its
 * device id, as ingest files a transcript decoded from that machine's synced archive.
 */
import type Database from 'better-sqlite3';
import type { ResponseEntry } from '../../daemon/usage/rank.js';

export interface IndexedFile {
  id: number;
  path: string;
  project: string;
  sessionId: string;
  /** Another machine's device id; absent for this machine's transcript. */
  device?: string;
  entries: readonly ResponseEntry[];
}

/** An API response of `output` output tokens (and fixed input and cache counts), keyed by `n`. */
export function responseEntry(
  n: number,
  timestamp: string,
  model: string,
  output: number,
  offset = n * 100,
): ResponseEntry {
  return {
    offset,
    type: 'assistant',
    timestamp,
    messageId: `msg_${n}`,
    requestId: `req_${n}`,
    model,
    usage: { input: 1_000, output, cacheCreation: 2_000, cacheRead: 10_000, cache5m: 0, cache1h: 2_000 },
    isSidechain: false,
  };
}

/** Writes API response entries of a file as ingest commits them (the columns the usage book reads). */
export function responseEntryWriter(
  db: Database.Database,
): (fileId: number, entries: readonly ResponseEntry[]) => void {
  const insertEntry = db.prepare(`
    INSERT INTO entries (file_id, offset, length, type, timestamp, message_id, request_id, model, usage_input, usage_output,
      usage_cache_creation, usage_cache_read, usage_cache_5m, usage_cache_1h, chars, est_tokens, is_sidechain, is_meta, is_compact_summary)
    VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, 0, 0)`);
  return (fileId, entries) => {
    for (const entry of entries) {
      const { usage } = entry;
      insertEntry.run(
        fileId,
        entry.offset,
        entry.type,
        entry.timestamp,
        entry.messageId,
        entry.requestId,
        entry.model,
        usage?.input ?? null,
        usage?.output ?? null,
        usage?.cacheCreation ?? null,
        usage?.cacheRead ?? null,
        usage?.cache5m ?? null,
        usage?.cache1h ?? null,
        entry.isSidechain ? 1 : 0,
      );
    }
  };
}

export function indexFiles(db: Database.Database, files: readonly IndexedFile[]): void {
  const insertFile = db.prepare(
    `INSERT INTO files (id, path, project, session_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset,
       bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen, device)
     VALUES (?, ?, ?, ?, 0, '1', ?, 0, 0, '', ?, 0, 0, 0, 0, 0, 0, 0, ?)`,
  );
  const writeEntries = responseEntryWriter(db);
  db.transaction(() => {
    for (const file of files) {
      const end = Math.max(0, ...file.entries.map((entry) => entry.offset)) + 1;
      insertFile.run(file.id, file.path, file.project, file.sessionId, String(file.id), end, file.device ?? null);
      writeEntries(file.id, file.entries);
    }
  })();
}
