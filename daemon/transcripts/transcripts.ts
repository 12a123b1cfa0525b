/**
 * The transcripts read model: what every domain asks of a session's transcripts, in one place.
 * It owns the read SQL (queries.ts, checkpoints.ts), the entry cache and the cache of loaded
 * conversations, so that no domain carries a database and a cache around: compaction, extraction,
 * hooks, handoffs, rewind and the sessions' accounting get a Transcripts and nothing else of the
 * index. Reads that must agree across files run in one read transaction.
 */
import type Database from 'better-sqlite3';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { IngestedFile, IngestedSession } from '../store/rows.js';
import { loadSessionCheckpoints, type SessionCheckpoints } from './checkpoints.js';
import { createConversationLoader, loadMainEntries, mainTranscript, type SessionConversation } from './conversation.js';
import { createEntryCache, type EntryCache, type SessionEntries } from './entry-cache.js';
import { loadEntries, type LoadedEntry } from './entries.js';
import { leafTitles, listSessions, loadFileEntries, sessionFiles, summaryTitle } from './queries.js';

export interface Transcripts {
  /** The database file, for a worker that opens its own read-only connection. */
  readonly dbPath: string;
  /** Every session the index knows, most recently changed first. */
  sessions(): IngestedSession[];
  /** The session's files: the main transcript first, then sub-agent files by path. */
  files(sessionId: string): IngestedFile[];
  /** The session's main transcript; NotFound (or MainTranscriptMissing) without one. */
  mainFile(sessionId: string): IngestedFile;
  /** The main transcript and its indexed entries, read in one transaction (cached). */
  mainEntries(sessionId: string): { file: IngestedFile; entries: IndexedEntry[] };
  /** The session's indexed entries by kind of file (cached), read in one transaction. */
  sessionEntries(sessionId: string): { files: IngestedFile[] } & SessionEntries;
  /** One file's indexed entries from `fromOffset` on. */
  fileEntries(fileId: number, fromOffset?: number): IndexedEntry[];
  /** The active conversation with its lines read back and its messages (the last few cached). */
  conversation(sessionId: string): SessionConversation;
  /** Lines of a transcript read back by offset, as the index has them. */
  read(path: string, entries: readonly IndexedEntry[]): LoadedEntry[];
  /** The titles 1.0.x `summary` entries give, by leafUuid, in one project folder. */
  leafTitles(project: string): Map<string, string>;
  /** The title a 1.0.x `summary` entry in the project gives the session with this main transcript. */
  summaryTitle(project: string, mainFileId: number): string | null;
  /** The session's file checkpoints and the prompts they belong to. */
  checkpoints(sessionId: string): SessionCheckpoints;
  /** Runs `read` in one read transaction, so that rows of several files agree. */
  consistent<T>(read: () => T): T;
  /** Forgets everything cached: the database was rebuilt, so file ids name other files now. */
  clear(): void;
}

export interface TranscriptsDeps {
  db: Database.Database;
  /** Shared with nobody else; made here when not given (tests pass one to look into). */
  cache?: EntryCache;
}

export function createTranscripts({ db, cache = createEntryCache() }: TranscriptsDeps): Transcripts {
  let conversations = createConversationLoader();
  const consistent = <T>(read: () => T): T => db.transaction(read)();
  return {
    dbPath: db.name,
    sessions: () => listSessions(db),
    files: (sessionId) => sessionFiles(db, sessionId),
    mainFile: (sessionId) => mainTranscript(sessionFiles(db, sessionId), sessionId),
    mainEntries: (sessionId) => loadMainEntries(db, cache, sessionId),
    sessionEntries: (sessionId) =>
      consistent(() => {
        const files = sessionFiles(db, sessionId);
        // An unknown session gets no cache slot: ids clients ask about at random must not pile up.
        if (files.length === 0) return { files, main: [], sidechain: [], compaction: [] };
        return { files, ...cache.load(db, sessionId, files) };
      }),
    fileEntries: (fileId, fromOffset) => loadFileEntries(db, fileId, fromOffset),
    conversation: (sessionId) => conversations(db, cache, sessionId),
    read: (path, entries) => loadEntries(path, entries),
    leafTitles: (project) => leafTitles(db, project),
    summaryTitle: (project, mainFileId) => summaryTitle(db, project, mainFileId),
    checkpoints: (sessionId) => loadSessionCheckpoints(db, sessionId),
    consistent,
    clear() {
      cache.clear();
      conversations = createConversationLoader();
    },
  };
}
