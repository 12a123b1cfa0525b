/**
 * The session's response book, table `session_responses` (migration 8): each API response of a
 * session counted once, in the bucket it was first seen in, with the usage of its finalest entry.
 * aggregates.ts folds a commit through it; apart because it is a table of its own with its own
 * batching: an append reads only the responses it names and writes back only those it changed.
 */
import type Database from 'better-sqlite3';
import type { Bucket, CountedResponse, ResponseBook } from '../../shared/transcript/aggregate.js';

/** The columns of a session_responses row, as the INSERTs bind them. */
const RESPONSE_COLUMNS = 10;
/** Rows per multi-row INSERT (see putResponses). */
const RESPONSE_BATCH = 32;

interface ResponseRow {
  key: string;
  bucket: Bucket;
  model: string;
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
  cache_5m: number;
  cache_1h: number;
}

/** A book over a map, recording what changed so that only that is written back. */
export function bookOver(known: Map<string, CountedResponse>): ResponseBook & { changed: Set<string> } {
  const changed = new Set<string>();
  return {
    changed,
    get: (key) => known.get(key),
    set(key, response) {
      known.set(key, response);
      changed.add(key);
    },
  };
}

export interface ResponseTable {
  /** The session's responses with these keys, as counted so far. */
  read(sessionId: string, keys: ReadonlySet<string>): Map<string, CountedResponse>;
  /** Writes back the responses of `known` named by `keys`. */
  write(sessionId: string, known: Map<string, CountedResponse>, keys: Iterable<string>): void;
  /** The session's responses go (it is counted again from its rows, or it has none). */
  drop(sessionId: string): void;
}

export function createResponseTable(db: Database.Database): ResponseTable {
  const getResponses = db.prepare(
    'SELECT * FROM session_responses WHERE session_id = ? AND key IN (SELECT value FROM json_each(?))',
  );
  const putResponse = db.prepare('INSERT OR REPLACE INTO session_responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const dropResponses = db.prepare('DELETE FROM session_responses WHERE session_id = ?');

  /** Rows per multi-row INSERT: a statement step per response costs more than binding one (see entry-row.ts). */
  const putResponses = db.prepare(
    `INSERT OR REPLACE INTO session_responses VALUES ${Array.from({ length: RESPONSE_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  );
  const writeBook = (sessionId: string, known: Map<string, CountedResponse>, keys: Iterable<string>) => {
    const params: (string | number)[] = [];
    for (const key of keys) {
      const { bucket, model, usage } = known.get(key) as CountedResponse;
      params.push(
        sessionId,
        key,
        bucket,
        model,
        usage.input,
        usage.output,
        usage.cacheCreation,
        usage.cacheRead,
        usage.cache5m,
        usage.cache1h,
      );
      if (params.length === RESPONSE_BATCH * RESPONSE_COLUMNS) {
        putResponses.run(params);
        params.length = 0;
      }
    }
    for (let at = 0; at < params.length; at += RESPONSE_COLUMNS)
      putResponse.run(params.slice(at, at + RESPONSE_COLUMNS));
  };

  return {
    read(sessionId, keys) {
      const known = new Map<string, CountedResponse>();
      for (const row of getResponses.all(sessionId, JSON.stringify([...keys])) as ResponseRow[]) {
        known.set(row.key, {
          bucket: row.bucket,
          model: row.model,
          usage: {
            input: row.input,
            output: row.output,
            cacheCreation: row.cache_creation,
            cacheRead: row.cache_read,
            cache5m: row.cache_5m,
            cache1h: row.cache_1h,
          },
        });
      }
      return known;
    },
    write: writeBook,
    drop: (sessionId) => {
      dropResponses.run(sessionId);
    },
  };
}
