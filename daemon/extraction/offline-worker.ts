/**
 * The offline extraction's worker thread: loads the session's entries through its own read-only
 * SQLite connection (WAL lets it read beside the daemon's writes), reads the active conversation
 * back from the transcript (and the file calls before its last compaction, transcripts/earlier.ts)
 * and writes the offline summary, all off the daemon's main thread (a 200K-token session takes
 * tens of milliseconds that RPC clients would otherwise wait behind). One request at a time.
 */

import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { activeConversation } from '../../shared/transcript/conversation.js';
import { loadEarlierCalls } from '../transcripts/earlier.js';
import { loadEntries } from '../transcripts/entries.js';
import { loadFileEntries, sessionFiles } from '../transcripts/queries.js';
import type { OfflineReply, OfflineRequest } from './offline-extractor.js';
import { offlineSessionMemory } from './offline-summary.js';
import { sessionTitle } from './title.js';
import { triggerState } from './triggers.js';

/** The lowest scheduling priority: extraction is background work. */
const BACKGROUND_NICE = 19;
const port = parentPort;
if (port === null) throw new Error('offline-worker.js runs only as a worker thread');
try {
  // Linux nice values are per thread: this lowers only this worker, so on a busy machine the
  // daemon's main thread (RPC, ingest) runs first and extraction takes what is left.
  setPriority(BACKGROUND_NICE);
} catch {
  // Not permitted here: extraction still works, at normal priority.
}
const connections = new Map<string, Database.Database>();

function connection(path: string): Database.Database {
  let db = connections.get(path);
  if (db === undefined) {
    db = new Database(path, { readonly: true, fileMustExist: true });
    connections.set(path, db);
  }
  return db;
}

port.on('message', (request: OfflineRequest) => {
  let reply: OfflineReply;
  try {
    const db = connection(request.dbPath);
    const { file, entries } = db.transaction(() => {
      const main = sessionFiles(db, request.sessionId).find((candidate) => candidate.agentId === null);
      if (main === undefined) throw new Error(`no main transcript of session ${request.sessionId} in the index`);
      return { file: main, entries: loadFileEntries(db, main.id) };
    })();
    const active = activeConversation(entries);
    const loaded = loadEntries(file.path, active.entries);
    const last = loaded.at(-1)?.entry ?? null;
    const text = offlineSessionMemory({
      loaded,
      // The file facts of the calls before the last compaction: the memory is of the whole session.
      earlier: loadEarlierCalls(file.path, entries, active),
      previous: request.previous,
      template: request.template,
      title: sessionTitle(entries),
    });
    const { contextTokens } = triggerState(entries, request.lastExtraction);
    reply = { id: request.id, text, lastUuid: last?.uuid ?? null, lastOffset: last?.offset ?? null, contextTokens };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
