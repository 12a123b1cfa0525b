/** Which machines hold a session, by name (sessions.list's device column; issue 35). */
import type Database from 'better-sqlite3';

/**
 * A session's machines when another machine's copy of it is indexed: this machine first (when it
 * holds the session), then the others by name; undefined for a session only this machine has, so
 * that answers stay as they were where sync is not used.
 */
export function sessionDevices(db: Database.Database, selfName: string): (sessionId: string) => string[] | undefined {
  const devices = db.prepare('SELECT DISTINCT device FROM files WHERE session_id = ?').pluck();
  const name = db.prepare('SELECT name FROM sync_devices WHERE id = ?').pluck();
  return (sessionId) => {
    const ids = devices.all(sessionId) as (string | null)[];
    if (!ids.some((id) => id !== null)) return undefined;
    const others = ids
      .filter((id): id is string => id !== null)
      .map((id) => (name.get(id) as string | undefined) ?? id)
      .sort();
    return ids.includes(null) ? [selfName, ...others] : others;
  };
}
