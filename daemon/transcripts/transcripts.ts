/**
 * The transcripts read model: what every domain asks of a session's transcripts, in one place.
 * It owns the read SQL (queries.ts, checkpoints.ts), the entry cache and the cache of loaded
 * conversations, so that no domain carries a database and a cache around: compaction, extraction,
 * hooks, handoffs, rewind and the sessions' accounting get a Transcripts and nothing else of the
 * index. Reads that must agree across files run in one read transaction.
 */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { activeConversation } from '../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { IngestedFile, IngestedSession } from '../store/rows.js';
import { createSlicer, nextTurn, SLICE_BUDGET_MS } from '../workers/slices.js';
import { loadSessionCheckpoints, type SessionCheckpoints } from './checkpoints.js';
import {
  CACHED_CONVERSATIONS,
  conversationKey,
  conversationOf,
  mainTranscript,
  type SessionConversation,
} from './conversation.js';
import { type LoadedEntry, readEntries } from './entries.js';
import { createEntryCache, type EntryCache, type SessionEntries } from './entry-cache.js';
import { leafTitles, listSessions, loadFileEntries, loadLastEntries, sessionFiles, summaryTitle } from './queries.js';
import { createSharedLoads } from './shared-loads.js';

/**
 * A sliced load that found its files rewritten under it starts again; a file rewritten this many
 * times in a row during one load is being rewritten faster than it can be read.
 */
const MAX_LOAD_ATTEMPTS = 3;

export interface Transcripts {
  /** The database file, for a worker that opens its own read-only connection. */
  readonly dbPath: string;
  /** Every session the index knows, most recently changed first. */
  sessions(): IngestedSession[];
  /** The session's files: the main transcript first, then sub-agent files by path. */
  files(sessionId: string): IngestedFile[];
  /** The session's main transcript; NotFound (or MainTranscriptMissing) without one. */
  mainFile(sessionId: string): IngestedFile;
  /** The main transcript and its indexed entries (cached; loaded in slices). */
  mainEntries(sessionId: string, signal?: AbortSignal): Promise<{ file: IngestedFile; entries: IndexedEntry[] }>;
  /**
   * The session's indexed entries by kind of file (cached; loaded in slices, callers of one
   * session sharing one load); `files` as they were when the entries were read.
   */
  sessionEntries(sessionId: string, signal?: AbortSignal): Promise<{ files: IngestedFile[] } & SessionEntries>;
  /** One file's indexed entries from `fromOffset` on. */
  fileEntries(fileId: number, fromOffset?: number): IndexedEntry[];
  /** The last `rows` indexed entries of the session's main transcript, in file order; none without one (a bounded read: no cache). */
  mainTail(sessionId: string, rows: number): IndexedEntry[];
  /** The active conversation with its lines read back and its messages (the last few cached; loaded in slices). */
  conversation(sessionId: string, signal?: AbortSignal): Promise<SessionConversation>;
  /** Lines of a transcript read back by offset, as the index has them (in slices). */
  read(path: string, entries: readonly IndexedEntry[], signal?: AbortSignal): Promise<LoadedEntry[]>;
  /** The titles 1.0.x `summary` entries give, by leafUuid, in one project folder. */
  leafTitles(project: string): Map<string, string>;
  /** The title a 1.0.x `summary` entry in the project gives the session with this main transcript. */
  summaryTitle(project: string, mainFileId: number): string | null;
  /** The session's file checkpoints and the prompts they belong to (lines read back in slices). */
  checkpoints(sessionId: string, signal?: AbortSignal): Promise<SessionCheckpoints>;
  /** Runs `read` in one read transaction, so that rows of several files agree. */
  consistent<T>(read: () => T): T;
  /** Forgets everything cached: the database was rebuilt, so file ids name other files now. */
  clear(): void;
}

export interface TranscriptsDeps {
  db: Database.Database;
  /** Shared with nobody else; made here when not given (tests pass one to look into). */
  cache?: EntryCache;
  /** A slice's budget on the main thread (tests pass 0: a turn of the event loop after every page and line). */
  sliceMs?: number;
  /** Rows per query of a load (tests pass a few). */
  pageRows?: number;
}

const filesVersion = (files: readonly IngestedFile[]) =>
  files.map((file) => `${file.id}:${file.generation}:${file.committedOffset}`).join(',');

export function createTranscripts({
  db,
  cache = createEntryCache(),
  sliceMs = SLICE_BUDGET_MS,
  pageRows,
}: TranscriptsDeps): Transcripts {
  const consistent = <T>(read: () => T): T => db.transaction(read)();
  const sharedEntries = createSharedLoads<(SessionEntries & { files: IngestedFile[] }) | null>();
  const sharedConversations = createSharedLoads<SessionConversation>();
  // Recency order, as the entry cache; `epoch` tells a load in flight that clear() came since.
  let conversations = new Map<string, { key: string; conversation: SessionConversation }>();
  let epoch = 0;

  async function sessionEntries(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<{ files: IngestedFile[] } & SessionEntries> {
    for (let attempt = 1; ; attempt++) {
      const files = sessionFiles(db, sessionId);
      // An unknown session gets no cache slot: ids clients ask about at random must not pile up.
      if (files.length === 0) return { files, main: [], sidechain: [], compaction: [], byFile: new Map() };
      const loaded = await sharedEntries(
        sessionId,
        filesVersion(files),
        async (shared) => {
          const entries = await cache.loadSliced(db, sessionId, files, createSlicer(shared, sliceMs), pageRows);
          return entries === null ? null : { files, ...entries };
        },
        signal,
      );
      if (loaded !== null) return loaded;
      if (attempt >= MAX_LOAD_ATTEMPTS) {
        throw new RpcError(
          ErrorCode.InvalidTranscript,
          'InvalidTranscript',
          `the transcripts of session ${sessionId} were rewritten while memd read them; try again`,
          { sessionId },
        );
      }
    }
  }

  async function mainEntries(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<{ file: IngestedFile; entries: IndexedEntry[] }> {
    const { files, main } = await sessionEntries(sessionId, signal);
    return { file: mainTranscript(files, sessionId), entries: main };
  }

  async function loadConversation(sessionId: string, signal: AbortSignal): Promise<SessionConversation> {
    const started = epoch;
    const { file, entries } = await mainEntries(sessionId, signal);
    const active = activeConversation(entries, { bridgeBrokenChain: true });
    await nextTurn();
    const loaded = await readEntries(file.path, active.entries, createSlicer(signal, sliceMs));
    await nextTurn();
    const conversation = conversationOf(sessionId, file, entries, active, loaded);
    if (epoch === started) {
      conversations.set(sessionId, { key: conversationKey(file), conversation });
      for (const oldest of conversations.keys()) {
        if (conversations.size <= CACHED_CONVERSATIONS) break;
        conversations.delete(oldest);
      }
    }
    return conversation;
  }

  /**
   * The last load of a session while its main transcript is unchanged (same file, generation and
   * committed offset). Layers never modify a conversation (the property tests run them on frozen
   * ones), so one load can serve every call.
   */
  async function conversation(sessionId: string, signal?: AbortSignal): Promise<SessionConversation> {
    const key = conversationKey(sessionFiles(db, sessionId).find((candidate) => candidate.agentId === null));
    const hit = conversations.get(sessionId);
    if (hit !== undefined && hit.key === key) {
      conversations.delete(sessionId);
      conversations.set(sessionId, hit);
      return hit.conversation;
    }
    return sharedConversations(sessionId, key, (shared) => loadConversation(sessionId, shared), signal);
  }

  return {
    dbPath: db.name,
    sessions: () => listSessions(db),
    files: (sessionId) => sessionFiles(db, sessionId),
    mainFile: (sessionId) => mainTranscript(sessionFiles(db, sessionId), sessionId),
    mainEntries,
    sessionEntries,
    fileEntries: (fileId, fromOffset) => loadFileEntries(db, fileId, fromOffset),
    mainTail(sessionId, rows) {
      const main = sessionFiles(db, sessionId).find((file) => file.agentId === null);
      return main === undefined ? [] : loadLastEntries(db, main.id, rows);
    },
    conversation,
    read: (path, entries, signal) => readEntries(path, entries, createSlicer(signal, sliceMs)),
    leafTitles: (project) => leafTitles(db, project),
    summaryTitle: (project, mainFileId) => summaryTitle(db, project, mainFileId),
    checkpoints: (sessionId, signal) => loadSessionCheckpoints(db, sessionId, createSlicer(signal, sliceMs)),
    consistent,
    clear() {
      cache.clear();
      conversations = new Map();
      epoch += 1;
    },
  };
}
