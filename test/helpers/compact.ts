/**
 * Helpers for compaction tests: a fixture scenario ingested into a temporary index, and its
 * session's conversation loaded as compaction sees it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBus } from '../../daemon/bus/bus.js';
import {
  type CompactionLayers,
  type CompactionService,
  createCompactionService,
} from '../../daemon/compaction/service.js';
import { scanTranscripts } from '../../daemon/ingest/scan.js';
import { createTailer } from '../../daemon/ingest/tailer.js';
import { openStore, type Store } from '../../daemon/store/db.js';
import { loadConversation, type SessionConversation } from '../../daemon/transcripts/conversation.js';
import { createEntryCache, type EntryCache } from '../../daemon/transcripts/entry-cache.js';
import { type ConversationMessage, normalize } from '../../daemon/transcripts/messages.js';
import { createTranscripts } from '../../daemon/transcripts/transcripts.js';
import type { ThresholdResult } from '../../shared/protocol/sessions.js';
import { classifyTranscript } from '../../shared/transcript/layout.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { fakeLogger } from './fake-logger.js';
import { type Manifest, manifest } from './fixtures.js';
import { copyFixtureProjects } from './ingest.js';

export interface IngestedSession {
  dir: string;
  projectsDir: string;
  store: Store;
  cache: EntryCache;
  sessionId: string;
  conversation(): SessionConversation;
  close(): void;
}

export interface IngestedFixture extends IngestedSession {
  manifest: Manifest;
}

/** Copies a scenario's transcripts to a temporary dir and indexes them (inline, no daemon). */
export async function ingestFixture(scenario: string): Promise<IngestedFixture> {
  const dir = mkdtempSync(join(tmpdir(), `memd-compact-${scenario}-`));
  copyFixtureProjects(join(dir, 'projects'), [scenario]);
  const found = manifest(scenario);
  return { ...(await ingestWritten(dir, found.sessionId)), manifest: found };
}

/** Indexes the transcripts under `<dir>/projects` (inline, no daemon); `sessionId` is the session compacted. */
export async function ingestWritten(dir: string, sessionId: string): Promise<IngestedSession> {
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
    sessionId,
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
    messages.push({
      role: 'user',
      content: [{ type: 'text', text: `Request ${n}: look at /src/module_${n}.py and fix \`handler_${n}\`` }],
      uuids: [`u-${n}`],
      messageId: null,
      isPrompt: true,
      isSummary: false,
    });
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: tool, input: { command: `cat /src/module_${n}.py` } }],
      uuids: [`a-${n}`],
      messageId: `msg_${n}`,
      isPrompt: false,
      isSummary: false,
    });
    const line = `line of output ${n} `.padEnd(79, '.');
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: `${line}\n`.repeat(Math.ceil(resultChars / 80)).slice(0, resultChars),
        },
      ],
      uuids: [`r-${n}`],
      messageId: null,
      isPrompt: false,
      isSummary: false,
    });
    messages.push({
      role: 'assistant',
      content: [{ type: 'text', text: `Done with request ${n}.` }],
      uuids: [`t-${n}`],
      messageId: `msg_${n}_b`,
      isPrompt: false,
      isSummary: false,
    });
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

/**
 * The compaction service over an ingested session, for the methods that need no model
 * (reactive, micro as given, cache edits); auto-compaction is not under test with it.
 */
export function compactionService(session: IngestedSession, autoCompactAt = 167_000): CompactionService {
  const layers: CompactionLayers = {
    micro: async (conversation) => ({ messages: conversation.messages, actions: [] }),
    sessionMemory: async () => null,
    summary: async () => {
      throw new Error('no summarizer in this test');
    },
  };
  const threshold: ThresholdResult = {
    model: 'm',
    tokens: 0,
    window: 200_000,
    effectiveWindow: 180_000,
    autoCompactAt,
    warningAt: 147_000,
    errorAt: 147_000,
    blockingAt: 177_000,
    state: 'ok',
    tokensLeft: 0,
    percentUsed: 0,
    autoCompactEnabled: true,
    autoCompactMode: 'threshold',
  };
  const bus = createBus((error) => {
    throw error;
  });
  return createCompactionService({
    transcripts: createTranscripts({ db: session.store.db, cache: session.cache }),
    bus,
    log: fakeLogger(),
    clock: () => 0,
    layers,
    thresholds: () => threshold,
    price: () => null,
  });
}
