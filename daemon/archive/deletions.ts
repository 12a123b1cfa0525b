/**
 * Deletions on the record (issue 31, migration 23). Claude Code deletes transcripts after
 * `cleanupPeriodDays` and with `claude project purge`; ingest sees each file go and marks it gone.
 * The book records each one in that same transaction (main.ts passes `record` as the commit
 * observer's `gone`), so that no deletion memd saw is missed across a crash. The checker then
 * says what memd holds of it: the archive's bytes of the file, inflated whole (verify.ts), once
 * the archive settled what it was writing. The reads group a burst (a cleanup removes hundreds of
 * files at once) into one event for display.
 */
import type Database from 'better-sqlite3';
import type { DeletedSession, DeletionEvent, DeletionState, DeletionsStatus } from '../../shared/protocol/archive.js';
import type { FileRow } from '../store/rows.js';

/** Deletions further apart than this are separate events: a cleanup or a purge removes its files within seconds, and memd sees them within a sweep. */
export const DELETION_BURST_GAP_MS = 10 * 60_000;

/** One session's deletions, as the book reads them (its latest deletion of each file). */
interface SessionRow {
  sessionId: string;
  project: string;
  goneAt: number;
  files: number;
  bytes: number;
  heldBytes: number;
  checking: number;
  allVerified: number;
  anyHeld: number;
  problem: string | null;
}

/** A deleted file not checked yet against the archive. */
export interface UncheckedDeletion {
  id: number;
  path: string;
  committed: number;
}

export function createDeletionBook(db: Database.Database) {
  const insert = db.prepare(`INSERT INTO deleted_files (path, session_id, project, agent_id, bytes, committed, gone_at)
    VALUES (@path, @session_id, @project, @agent_id, @size, @committed_offset, @at)`);
  const unchecked = db.prepare('SELECT id, path, committed FROM deleted_files WHERE checked_at IS NULL ORDER BY id');
  const setChecked = db.prepare(
    'UPDATE deleted_files SET held_bytes = ?, verified = ?, problem = ?, checked_at = ? WHERE id = ?',
  );
  // A file deleted, restored and deleted again counts once, as its latest deletion says.
  const sessions = db.prepare(`
    SELECT session_id AS sessionId, min(project) AS project, max(gone_at) AS goneAt, count(*) AS files, sum(bytes) AS bytes,
           coalesce(sum(held_bytes), 0) AS heldBytes, max(checked_at IS NULL) AS checking,
           min(coalesce(verified, 0)) AS allVerified, max(coalesce(held_bytes, 0) > 0) AS anyHeld,
           min(CASE WHEN problem IS NOT NULL THEN problem END) AS problem
    FROM deleted_files WHERE id IN (SELECT max(id) FROM deleted_files WHERE gone_at >= @since GROUP BY path)
    GROUP BY session_id ORDER BY max(gone_at) DESC, session_id`);
  const notHeld = db
    .prepare(
      'SELECT count(DISTINCT session_id) FROM deleted_files WHERE gone_at >= ? AND checked_at IS NOT NULL AND verified = 0',
    )
    .pluck();

  // Set by a deletion, taken by the archive's follower: a commit that deleted nothing checks nothing.
  let recorded = false;

  return {
    /** In the transaction that marks the file gone: the row as ingest last saw it. */
    record(file: FileRow, at: number): void {
      // An empty file held nothing to lose: a session Claude Code opened and left is not news.
      if (file.size === 0 && file.committed_offset === 0) return;
      insert.run({ ...file, at });
      recorded = true;
    },
    /** Whether a deletion was recorded since the last call. */
    takeRecorded(): boolean {
      const was = recorded;
      recorded = false;
      return was;
    },
    unchecked: () => unchecked.all() as UncheckedDeletion[],
    checked(id: number, held: { bytes: number; verified: boolean; problem: string | null }, at: number): void {
      setChecked.run(held.bytes, held.verified ? 1 : 0, held.problem, at, id);
    },
    /** Sessions with a file deleted at or after `since` (epoch ms) that memd did not hold whole. */
    notHeldSince: (since: number) => notHeld.get(since) as number,
    /** Sessions with a file deleted at or after `since` (epoch ms), newest first. */
    sessionsSince: (since: number) => sessions.all({ since }) as SessionRow[],
  };
}

export type DeletionBook = ReturnType<typeof createDeletionBook>;

export function stateOf(row: SessionRow): DeletionState {
  if (row.checking === 1) return 'checking';
  if (row.allVerified === 1) return 'kept';
  return row.anyHeld === 1 ? 'partial' : 'lost';
}

export function deletedSession(
  row: SessionRow,
  names: { projectName(project: string): string; title(sessionId: string): string | null },
): DeletedSession {
  const state = stateOf(row);
  return {
    sessionId: row.sessionId,
    project: row.project,
    projectName: names.projectName(row.project),
    title: names.title(row.sessionId),
    goneAt: new Date(row.goneAt).toISOString(),
    files: row.files,
    bytes: row.bytes,
    heldBytes: row.heldBytes,
    state,
    problem: state === 'kept' || state === 'checking' ? null : row.problem,
  };
}

/** Sessions (newest first) grouped into bursts: a session joins the event of the one after it when they went within DELETION_BURST_GAP_MS. */
export function deletionEvents(sessions: readonly DeletedSession[]): DeletionEvent[] {
  const events: DeletionEvent[] = [];
  let current: DeletionEvent | null = null;
  for (const session of sessions) {
    if (current === null || Date.parse(current.from) - Date.parse(session.goneAt) > DELETION_BURST_GAP_MS) {
      current = {
        from: session.goneAt,
        to: session.goneAt,
        sessions: 0,
        files: 0,
        bytes: 0,
        kept: 0,
        notHeld: 0,
        checking: 0,
        projects: [],
      };
      events.push(current);
    }
    current.from = session.goneAt;
    current.sessions += 1;
    current.files += session.files;
    current.bytes += session.bytes;
    if (session.state === 'kept') current.kept += 1;
    else if (session.state === 'checking') current.checking += 1;
    else current.notHeld += 1;
    if (!current.projects.includes(session.projectName)) current.projects.push(session.projectName);
  }
  return events;
}

export function deletionsStatus(sessions: readonly DeletedSession[]): DeletionsStatus {
  const events = deletionEvents(sessions);
  return {
    sessions: sessions.length,
    files: sessions.reduce((sum, session) => sum + session.files, 0),
    bytes: sessions.reduce((sum, session) => sum + session.bytes, 0),
    notHeld: sessions.filter((session) => session.state === 'lost' || session.state === 'partial').length,
    checking: sessions.filter((session) => session.state === 'checking').length,
    last: events[0] ?? null,
  };
}
