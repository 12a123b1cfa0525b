import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import { ingestStats } from '../../../../daemon/ingest/index-rows.js';
import { createIngestor } from '../../../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import {
  listSessions,
  loadFileEntries,
  loadSessionEntries,
  sessionFiles,
} from '../../../../daemon/transcripts/queries.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { copyFixtureProjects, FIXTURES } from '../../../helpers/ingest.js';

interface IndexJson {
  scenarios: { scenario: string; sessionId: string; transcript: string; entries: number }[];
}

const index = JSON.parse(readFileSync(join(FIXTURES, 'index.json'), 'utf8')) as IndexJson;
const SUBAGENT = 'a0b1e238-1b46-4fb7-a01b-e2debb338b95';

let dir: string;
let root: string;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memd-store-'));
  root = join(dir, 'projects');
  mkdirSync(root);
  copyFixtureProjects(root);
  store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  const ingestor = createIngestor({
    db: store.db,
    bus: createBus(() => {}),
    log: fakeLogger(),
    clock: () => Date.now(),
    projectsDir: root,
    onSessionsChanged: () => {},
  });
  ingestor.backfill(await scanTranscripts(root), []);
  await ingestor.idle();
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the transcript index', () => {
  it('lists one session per fixture, with its main file and project', () => {
    const sessions = listSessions(store.db);
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(index.scenarios.map((s) => s.sessionId).sort());
    for (const scenario of index.scenarios) {
      const session = sessions.find((s) => s.sessionId === scenario.sessionId);
      const mainFile = join(root, scenario.transcript.split('/').slice(2).join('/'));
      expect(session).toMatchObject({
        mainFile,
        project: scenario.transcript.split('/')[2],
        gone: false,
        lastOffset: statSync(mainFile).size,
        files: scenario.sessionId === SUBAGENT ? 3 : 1,
      });
    }
  });

  it('holds as many main-transcript entries as index.json counts', () => {
    for (const scenario of index.scenarios) {
      expect(loadSessionEntries(store.db, scenario.sessionId).main, scenario.scenario).toHaveLength(scenario.entries);
    }
  });

  it('loads a session as its main entries and its sidechain entries, each in file order', () => {
    const { main, sidechain } = loadSessionEntries(store.db, SUBAGENT);
    expect(main.every((entry) => !entry.isSidechain)).toBe(true);
    expect(sidechain.length).toBeGreaterThan(0);
    expect(sidechain.every((entry) => entry.isSidechain)).toBe(true);
    const files = sessionFiles(store.db, SUBAGENT);
    expect(files.map((file) => file.agentId)).toEqual([null, 'a2031b019378493bd', 'a7f4947acf8b8eb5e']);
    expect(sidechain).toEqual([...loadFileEntries(store.db, files[1]!.id), ...loadFileEntries(store.db, files[2]!.id)]);
    const offsets = main.map((entry) => entry.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it('loads only what follows an offset, for incremental readers', () => {
    const [file] = sessionFiles(store.db, SUBAGENT);
    const all = loadFileEntries(store.db, file!.id);
    const from = all[10]!.offset;
    expect(loadFileEntries(store.db, file!.id, from)).toEqual(all.slice(10));
  });

  it('keeps tool uses, tool results and usage with their entries', () => {
    const { main } = loadSessionEntries(store.db, SUBAGENT);
    expect(main.some((entry) => entry.toolUses.some((use) => use.name === 'Agent' || use.name === 'Task'))).toBe(true);
    expect(main.some((entry) => entry.toolResults.length > 0)).toBe(true);
    expect(main.filter((entry) => entry.type === 'assistant').every((entry) => entry.usage !== null)).toBe(true);
  });

  it('totals files, sessions, entries, bad lines and bytes read', async () => {
    const files = await scanTranscripts(root);
    const entries = listSessions(store.db).reduce((sum, s) => sum + s.entries, 0);
    expect(ingestStats(store.db)).toEqual({
      files: files.length,
      sessions: index.scenarios.length,
      entries,
      badLines: 0,
      // Claude Code's own transcripts: every timestamp good (issue 27).
      badTimestamps: 0,
      bytesRead: files.reduce((sum, file) => sum + file.size, 0),
    });
  });
});
