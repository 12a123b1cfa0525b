/**
 * Helpers for compaction tests: a fixture scenario ingested into a temporary index, and its
 * session's conversation loaded as compaction sees it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConversation, type SessionConversation } from '../../daemon/compact/conversation.js';
import { normalize, type ConversationMessage } from '../../daemon/compact/messages.js';
import { classifyTranscript } from '../../daemon/ingest/layout.js';
import { createTailer } from '../../daemon/ingest/tailer.js';
import { scanTranscripts } from '../../daemon/ingest/watcher.js';
import { createEntryCache, type EntryCache } from '../../daemon/sessions/entry-cache.js';
import { openStore, type Store } from '../../daemon/store/db.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { fakeLogger } from './fake-logger.js';
import { manifest, type Manifest } from './fixtures.js';
import { copyFixtureProjects } from './ingest.js';

export interface IngestedFixture {
  dir: string;
  projectsDir: string;
  store: Store;
  cache: EntryCache;
  manifest: Manifest;
  conversation(): SessionConversation;
  close(): void;
}

/** Copies a scenario's transcripts to a temporary dir and indexes them (inline, no daemon). */
export async function ingestFixture(scenario: string): Promise<IngestedFixture> {
  const dir = mkdtempSync(join(tmpdir(), `memd-compact-${scenario}-`));
  const projectsDir = join(dir, 'projects');
  copyFixtureProjects(projectsDir, [scenario]);
  const found = manifest(scenario);
  return { ...(await ingestDir(dir, found.sessionId)), manifest: found };
}

export type IngestedProjects = Omit<IngestedFixture, 'manifest'>;

/**
 * Indexes the transcripts a test wrote under `<dir>/projects` (inline, no daemon); the
 * conversation is that of `sessionId`. Closing removes `dir`.
 */
export async function ingestDir(dir: string, sessionId: string): Promise<IngestedProjects> {
  const projectsDir = join(dir, 'projects');
  const store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  const tailer = createTailer({ db: store.db, log: fakeLogger(), clock: () => Date.now(), onCommit: () => {} });
  for (const file of await scanTranscripts(projectsDir)) {
    const target = classifyTranscript(projectsDir, file.path);
    if (target !== null) await tailer.pass(target, { shouldYield: () => false });
  }
  await tailer.close();
  const cache = createEntryCache();
  return {
    dir,
    projectsDir,
    store,
    cache,
    conversation: () => loadConversation(store.db, cache, sessionId),
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A conversation of `rounds` API rounds: a prompt, an assistant tool_use, its result of
 * `resultChars` characters, and an assistant text. Deterministic.
 */
export function syntheticConversation(rounds: number, resultChars = 4_000, tool = 'Bash'): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  for (let n = 0; n < rounds; n++) {
    const id = `toolu_${String(n).padStart(6, '0')}`;
    messages.push({ role: 'user', content: [{ type: 'text', text: `Request ${n}: look at /src/module_${n}.py and fix \`handler_${n}\`` }], uuids: [`u-${n}`], messageId: null, isPrompt: true, isSummary: false });
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: tool, input: { command: `cat /src/module_${n}.py` } }], uuids: [`a-${n}`], messageId: `msg_${n}`, isPrompt: false, isSummary: false });
    const line = `line of output ${n} `.padEnd(79, '.');
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `${line}\n`.repeat(Math.ceil(resultChars / 80)).slice(0, resultChars) }], uuids: [`r-${n}`], messageId: null, isPrompt: false, isSummary: false });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Done with request ${n}.` }], uuids: [`t-${n}`], messageId: `msg_${n}_b`, isPrompt: false, isSummary: false });
  }
  return normalize(messages);
}

/** An index row with neutral defaults, for tests that build conversations by hand. */
export function indexedEntry(overrides: Partial<IndexedEntry> = {}): IndexedEntry {
  return {
    offset: 0,
    length: 0,
    type: 'user',
    subtype: null,
    uuid: null,
    parentUuid: null,
    logicalParentUuid: null,
    timestamp: null,
    sessionId: null,
    chars: 0,
    estTokens: 0,
    messageId: null,
    requestId: null,
    model: null,
    usage: null,
    toolUses: [],
    toolResults: [],
    isSidechain: false,
    isMeta: false,
    isCompactSummary: false,
    cwd: null,
    gitBranch: null,
    title: null,
    compact: null,
    ...overrides,
  };
}
