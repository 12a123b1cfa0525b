/**
 * Whose `summary.md` a session's memory is (issue 31): memd's, or Claude Code's own session memory
 * (flag-gated in its binary; 2.1.197, which installs here, has no trace of it: no `session-memory`
 * nor `summary.md` string), which writes the same `<session>/session-memory/summary.md`. When Claude
 * Code wrote it, memd reads it (compaction, handoffs) and stops writing a rival.
 *
 * How memd tells its own file: it records the sha256 of every summary it writes (migration 23,
 * `session_memory_writers`), and a file whose hash differs is someone else's. No marker goes into
 * the file, so nothing memd writes can change how Claude Code reads it. Before this record, memd
 * kept only the time of its last extraction: a file no newer than that (a few seconds' slack for
 * the write before the record) is taken as memd's, and its next write records the hash.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { SessionMemoryWriter } from '../../shared/protocol/sessions.js';

/** A summary written before migration 23 is memd's when no newer than its extraction plus this: the write comes just before the record. */
export const LEGACY_MTIME_SLACK_MS = 5_000;

export const sha256Of = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export interface WriterBook {
  /** memd wrote `text` as the session's summary. */
  wroteByMemd(sessionId: string, text: string): void;
  /** The file holds what another writer (Claude Code) wrote: memd leaves it be from now on. */
  foundOthers(sessionId: string): void;
  /** The sha256 of the last summary memd wrote, null when none is recorded. */
  memdHash(sessionId: string): string | null;
  /** Who wrote the session's summary last, as memd last saw it; null when memd has not seen one. */
  writerOf(sessionId: string): SessionMemoryWriter | null;
}

export function createWriterBook(db: Database.Database): WriterBook {
  const sql = {
    upsert: db.prepare(
      `INSERT INTO session_memory_writers (session_id, writer, memd_sha256) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET writer = excluded.writer, memd_sha256 = coalesce(excluded.memd_sha256, memd_sha256)`,
    ),
    get: db.prepare('SELECT writer, memd_sha256 AS hash FROM session_memory_writers WHERE session_id = ?'),
  };
  const row = (sessionId: string) => sql.get.get(sessionId) as { writer: string; hash: string | null } | undefined;
  return {
    wroteByMemd: (sessionId, text) => void sql.upsert.run(sessionId, 'memd', sha256Of(text)),
    foundOthers: (sessionId) => void sql.upsert.run(sessionId, 'claude-code', null),
    memdHash: (sessionId) => row(sessionId)?.hash ?? null,
    writerOf(sessionId) {
      const writer = row(sessionId)?.writer;
      return writer === 'memd' || writer === 'claude-code' ? writer : null;
    },
  };
}

/** What memd knows of a summary file it is about to replace. */
export interface SummaryFile {
  text: string;
  mtimeMs: number;
}

/**
 * True when the file is not memd's: its hash is not the last memd wrote; or, with no hash recorded,
 * memd never extracted this session, or the file is newer than its last extraction.
 */
export function writtenByOther(file: SummaryFile, memdHash: string | null, lastExtractedAt: number | null): boolean {
  if (memdHash !== null) return sha256Of(file.text) !== memdHash;
  if (lastExtractedAt === null) return true;
  return file.mtimeMs > lastExtractedAt + LEGACY_MTIME_SLACK_MS;
}
