/** A session's active conversation, loaded from its transcript for compaction. */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { type ActiveConversation, activeConversation } from '../../shared/transcript/conversation.js';
import { attachmentTexts } from '../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { IngestedFile } from '../store/rows.js';
import { type LoadedEntry, loadEntries } from './entries.js';
import type { EntryCache } from './entry-cache.js';
import { buildMessages, type ConversationMessage } from './messages.js';
import { sessionFiles } from './queries.js';

export interface SessionConversation {
  sessionId: string;
  /** The main transcript. */
  file: IngestedFile;
  /** Every indexed entry of the main transcript, in file order. */
  entries: IndexedEntry[];
  active: ActiveConversation;
  /** The active entries with their content, in conversation order. */
  loaded: LoadedEntry[];
  messages: ConversationMessage[];
}

/**
 * The session's main transcript among its files. NotFound when the index has none: kind
 * MainTranscriptMissing when only sub-agent files of the session were found (their usage is
 * known, the conversation is not).
 */
export function mainTranscript(files: readonly IngestedFile[], sessionId: string): IngestedFile {
  const file = files.find((candidate) => candidate.agentId === null);
  if (file !== undefined) return file;
  if (files.length === 0)
    throw new RpcError(
      ErrorCode.NotFound,
      'NotFound',
      `no session ${sessionId} in the index; memctl sessions lists them`,
      { sessionId },
    );
  throw new RpcError(
    ErrorCode.NotFound,
    'MainTranscriptMissing',
    `session ${sessionId} has only sub-agent transcripts (${files.length}); its main transcript ${sessionId}.jsonl is missing, so there is no conversation to read`,
    { sessionId, subagentFiles: files.map((candidate) => candidate.path) },
  );
}

/** The session's main transcript and its entries, read in one transaction; NotFound without a main transcript. At once: for tests and benches. */
export function loadMainEntries(
  db: Database.Database,
  cache: EntryCache,
  sessionId: string,
): { file: IngestedFile; entries: IndexedEntry[] } {
  const { files, entries } = db.transaction(() => {
    const found = sessionFiles(db, sessionId);
    return { files: found, entries: found.length === 0 ? [] : cache.load(db, sessionId, found).main };
  })();
  return { file: mainTranscript(files, sessionId), entries };
}

/** The conversation of the main transcript's entries, once its active entries are read back. */
export function conversationOf(
  sessionId: string,
  file: IngestedFile,
  entries: IndexedEntry[],
  active: ActiveConversation,
  loaded: LoadedEntry[],
): SessionConversation {
  return { sessionId, file, entries, active, loaded, messages: buildMessages(loaded, attachmentTexts) };
}

/** The whole load at once, on the caller's thread: for tests and benches (the daemon loads in slices, transcripts.ts). */
export function loadConversation(db: Database.Database, cache: EntryCache, sessionId: string): SessionConversation {
  const { file, entries } = loadMainEntries(db, cache, sessionId);
  const active = activeConversation(entries, { bridgeBrokenChain: true });
  return conversationOf(sessionId, file, entries, active, loadEntries(file.path, active.entries));
}

/** Sessions whose loaded conversation is kept: a client compacting one asks again and again. */
export const CACHED_CONVERSATIONS = 4;

/** What a loaded conversation is valid for: its main transcript's file, generation and committed offset. */
export const conversationKey = (main: IngestedFile | undefined): string =>
  main === undefined ? '' : `${main.id}:${main.generation}:${main.committedOffset}`;
