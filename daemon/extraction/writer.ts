/**
 * Whose `summary.md` a session's memory is (issue 31): memd's, or Claude Code's own session memory
 * (flag-gated in its binary; 2.1.197, which installs here, has no trace of it: no `session-memory`
 * nor `summary.md` string), which writes the same `<session>/session-memory/summary.md`. When Claude
 * Code wrote it, memd reads it (compaction, handoffs) and stops writing a rival.
 *
 * How memd tells its own file: it records the sha256 of every summary it writes (migration 24,
 * `session_memory_writers`), and a file whose hash differs is someone else's. No marker goes into
 * the file, so nothing memd writes can change how Claude Code reads it. Before this record, memd
 * kept only the time of its last extraction: a file no newer than that (a few seconds' slack for
 * the write before the record) is taken as memd's, and its next write records the hash.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { SessionMemoryWriter } from '../../shared/protocol/sessions.js';

/** A summary written before migration 24 is memd's when no newer than its extraction plus this: the write comes just before the record. */
export const LEGACY_MTIME_SLACK_MS = 5_000;

export const sha256Of = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export interface WriterBook {
  /**
   * memd is about to write `text` as the session's summary (recorded first, with the hash before it
   * kept: a daemon killed between the record and the write leaves the old file, still memd's).
   */
  writingByMemd(sessionId: string, text: string): void;
  /** The file holds what another writer (Claude Code) wrote: memd leaves it be from now on. */
  foundOthers(sessionId: string): void;
  /** The sha256s of the last two summaries memd wrote (the file holds one of them), none when none is recorded. */
  memdHashes(sessionId: string): string[];
  /** Who wrote the session's summary last, as memd last saw it; null when memd has not seen one. */
  writerOf(sessionId: string): SessionMemoryWriter | null;
}

export function createWriterBook(db: Database.Database): WriterBook {
  const sql = {
    writing: db.prepare(
      `INSERT INTO session_memory_writers (session_id, writer, memd_sha256) VALUES (?, 'memd', ?)
       ON CONFLICT (session_id) DO UPDATE SET writer = 'memd', memd_previous_sha256 = memd_sha256, memd_sha256 = excluded.memd_sha256`,
    ),
    others: db.prepare(
      `INSERT INTO session_memory_writers (session_id, writer) VALUES (?, 'claude-code')
       ON CONFLICT (session_id) DO UPDATE SET writer = 'claude-code'`,
    ),
    get: db.prepare(
      'SELECT writer, memd_sha256 AS hash, memd_previous_sha256 AS previous FROM session_memory_writers WHERE session_id = ?',
    ),
  };
  const row = (sessionId: string) =>
    sql.get.get(sessionId) as { writer: string; hash: string | null; previous: string | null } | undefined;
  return {
    writingByMemd: (sessionId, text) => void sql.writing.run(sessionId, sha256Of(text)),
    foundOthers: (sessionId) => void sql.others.run(sessionId),
    memdHashes(sessionId) {
      const found = row(sessionId);
      return [found?.hash, found?.previous].filter((hash): hash is string => typeof hash === 'string');
    },
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
 * True when the file is not memd's: its hash is none of the last two memd wrote; or, with no hash recorded,
 * memd never extracted this session, or the file is newer than its last extraction.
 */
export function writtenByOther(
  file: SummaryFile,
  memdHashes: readonly string[],
  lastExtractedAt: number | null,
): boolean {
  if (memdHashes.length > 0) return !memdHashes.includes(sha256Of(file.text));
  if (lastExtractedAt === null) return true;
  return file.mtimeMs > lastExtractedAt + LEGACY_MTIME_SLACK_MS;
}
