/**
 * The persisted session aggregates against a computation from scratch (issue 15): random
 * transcripts (split responses with placeholder output, parallel tool calls, rewinds, new roots,
 * compactions with and without preserved segments, synthetic and inline-sidechain entries,
 * sub-agent and compaction-agent files, titles, partial last lines) go through the real ingestor
 * into a real SQLite index, with truncations, replacements, deletions and restarts in between;
 * after every step each session's summary from its aggregate must equal the one computed from
 * all of its entries. Seeded, so that a failure names the seed that reproduces it.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import { createIngestor, type Ingestor } from '../../../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { createAggregateStore } from '../../../../daemon/sessions/aggregates.js';
import { summarizeSession, summaryOf } from '../../../../daemon/sessions/summary.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { searchRowId, searchRowRange } from '../../../../daemon/store/search-row.js';
import { leafTitles, listSessions, loadFileEntries, sessionFiles } from '../../../../daemon/transcripts/queries.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';
import type { SessionFigures } from '../../../../shared/protocol/sessions.js';
import { searchTexts } from '../../../../shared/search/text.js';
import { computeSessionAccounting, type LastExtraction } from '../../../../shared/transcript/accounting.js';
import { accountingOf } from '../../../../shared/transcript/aggregate.js';
import { contextFromScratch } from '../../../../shared/transcript/aggregate-context.js';
import { isCompactionAgent } from '../../../../shared/transcript/layout.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { seededRandom } from '../../../helpers/seeded-random.mjs';

const SEEDS = Number(process.env.MEMD_PROPERTY_SEEDS ?? 24);
const STEPS = Number(process.env.MEMD_PROPERTY_STEPS ?? 30);
/** Turns of the event loop the background counts get before a check (they take one per slice). */
const SETTLE_TURNS = 2_000;
const ENV = {};

type Raw = Record<string, unknown>;

/** Writes plausible Claude Code lines for one session, remembering the tree it has built. */
class Writer {
  private n = 0;
  private uuids: string[] = [];
  private parents = new Map<string, string | null>();
  leaf: string | null = null;
  private clock = Date.parse('2026-03-01T10:00:00.000Z');
  constructor(
    private readonly rand: () => number,
    readonly sessionId: string,
    private readonly tag: string,
  ) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)] as T;
  }

  private base(type: string, parent: string | null, extra: Raw = {}): Raw & { uuid: string } {
    const uuid = `${this.tag}-${++this.n}`;
    this.clock += Math.floor(this.rand() * 5_000);
    const line: Raw & { uuid: string } = {
      type,
      uuid,
      parentUuid: parent,
      sessionId: this.sessionId,
      timestamp: new Date(this.clock).toISOString(),
      ...extra,
    };
    if (this.rand() < 0.3) line.cwd = this.pick(['/work/a', '/work/b']);
    if (this.rand() < 0.3) line.gitBranch = this.pick(['main', 'dev']);
    if (this.rand() < 0.05) delete line.timestamp;
    this.uuids.push(uuid);
    this.parents.set(uuid, parent);
    this.leaf = uuid;
    return line;
  }

  private parent(): string | null {
    const roll = this.rand();
    if (roll < 0.06 && this.uuids.length > 2) return this.pick(this.uuids); // a rewind
    if (roll < 0.08) return null; // a new root
    // Off one of the last few entries: a parallel tool call's sibling, or a short rewind.
    if (roll < 0.16 && this.uuids.length > 4) return this.pick(this.uuids.slice(-4));
    return this.leaf;
  }

  private text(): string {
    return 'x'.repeat(1 + Math.floor(this.rand() * 400));
  }

  prompt(): Raw[] {
    return [this.base('user', this.parent(), { message: { role: 'user', content: `prompt ${this.text()}` } })];
  }

  response(sidechain = false): Raw[] {
    const id = `msg_${this.tag}_${this.n}`;
    const requestId = `req_${this.tag}_${this.n}`;
    const model = this.pick(['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001', 'claude-opus-4-1-20250805']);
    const input = Math.floor(this.rand() * 50_000);
    const cacheRead = Math.floor(this.rand() * 100_000);
    const write = Math.floor(this.rand() * 5_000);
    const finalOutput = 20 + Math.floor(this.rand() * 2_000);
    const parts = 1 + Math.floor(this.rand() * 3);
    const tools = this.rand() < 0.4 ? 1 + Math.floor(this.rand() * 2) : 0;
    const lines: Raw[] = [];
    const toolEntries: { uuid: string; toolId: string }[] = [];
    let parent = this.parent();
    // Text parts, then tool calls, and now and then text after them (the last part is then no call).
    const kinds = [
      ...Array.from({ length: parts }, () => false),
      ...Array.from({ length: tools }, () => true),
      ...(tools > 0 && this.rand() < 0.2 ? [false] : []),
    ];
    for (let part = 0; part < kinds.length; part++) {
      const isTool = kinds[part] as boolean;
      const last = part === kinds.length - 1;
      const toolId = `tool_${this.tag}_${this.n}_${part}`;
      const usage = {
        input_tokens: input,
        // Early entries carry message_start's placeholder (2.1.3x).
        output_tokens: last ? finalOutput : 1 + Math.floor(this.rand() * 9),
        cache_read_input_tokens: cacheRead,
        cache_creation_input_tokens: write,
        cache_creation: { ephemeral_5m_input_tokens: write, ephemeral_1h_input_tokens: 0 },
      };
      const content = isTool
        ? [{ type: 'tool_use', id: toolId, name: 'Read', input: { path: this.text() } }]
        : [{ type: 'text', text: this.text() }];
      const line = this.base('assistant', parent, {
        requestId,
        isSidechain: sidechain,
        message: { id, role: 'assistant', model, content, usage },
      });
      lines.push(line);
      if (isTool) toolEntries.push({ uuid: line.uuid, toolId });
      parent = line.uuid;
    }
    for (const tool of toolEntries) {
      const content = [{ type: 'tool_result', tool_use_id: tool.toolId, content: this.text() }];
      lines.push(this.base('user', tool.uuid, { isSidechain: sidechain, message: { role: 'user', content } }));
    }
    return lines;
  }

  compaction(): Raw[] {
    const logical = this.leaf;
    const preserved = this.rand() < 0.4 && this.uuids.length > 3;
    // Claude Code keeps the leaf and its parent (the head an ancestor of the tail); now and then
    // a malformed segment, whose head is not on the tail's path.
    const tail = preserved ? (this.leaf ?? undefined) : undefined;
    const head = !preserved
      ? undefined
      : this.rand() < 0.8
        ? (this.parents.get(tail ?? '') ?? undefined)
        : this.uuids[this.uuids.length - 2];
    const boundary = this.base('system', null, {
      subtype: 'compact_boundary',
      logicalParentUuid: logical,
      compactMetadata: {
        trigger: this.pick(['auto', 'manual']),
        preTokens: Math.floor(this.rand() * 200_000),
        ...(this.rand() < 0.3 ? { postTokens: Math.floor(this.rand() * 20_000) } : {}),
      },
    });
    const summary = this.base('user', boundary.uuid, {
      isCompactSummary: true,
      message: { role: 'user', content: `summary ${this.text()}` },
    });
    if (preserved && head !== undefined && tail !== undefined) {
      (boundary.compactMetadata as Raw).preservedSegment = { headUuid: head, anchorUuid: summary.uuid, tailUuid: tail };
    }
    return [boundary, summary];
  }

  other(): Raw[] {
    const roll = this.rand();
    if (roll < 0.2) return [{ type: 'last-prompt', leafUuid: this.leaf, sessionId: this.sessionId }];
    if (roll < 0.35) return [{ type: 'custom-title', customTitle: `custom ${this.n}`, sessionId: this.sessionId }];
    if (roll < 0.5) return [{ type: 'ai-title', aiTitle: `ai ${this.n}`, sessionId: this.sessionId }];
    if (roll < 0.65) {
      const usage = { input_tokens: 0, output_tokens: 0 };
      return [
        this.base('assistant', this.leaf, {
          message: {
            id: `syn_${this.n}`,
            role: 'assistant',
            model: '<synthetic>',
            content: [{ type: 'text', text: 'No response requested.' }],
            usage,
          },
        }),
      ];
    }
    if (roll < 0.8) return this.response(true); // 1.0.x inline sidechain
    return [this.base('attachment', this.leaf, { attachment: { type: 'hook', content: this.text() } })];
  }

  next(): Raw[] {
    const roll = this.rand();
    if (roll < 0.3) return this.prompt();
    if (roll < 0.75) return this.response();
    if (roll < 0.82) return this.compaction();
    return this.other();
  }
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bus = createBus((error) => {
  throw error;
});

function fromScratch(
  store: Store,
  sessionId: string,
  last: LastExtraction | null,
): { summary: SessionFigures; lastResponseHasToolCalls: boolean } | undefined {
  const db = store.db;
  return db.transaction(() => {
    const files = sessionFiles(db, sessionId);
    if (files.length === 0) return undefined;
    const byKind = { main: [] as IndexedEntry[], sidechain: [] as IndexedEntry[], compaction: [] as IndexedEntry[] };
    for (const file of files) {
      const kind = file.agentId === null ? 'main' : isCompactionAgent(file.agentId) ? 'compaction' : 'sidechain';
      byKind[kind].push(...loadFileEntries(db, file.id));
    }
    const project = files.find((file) => file.agentId === null)?.project ?? files[0]?.project ?? '';
    const accounting = computeSessionAccounting(byKind.main, byKind.sidechain, {
      env: ENV,
      lastExtraction: last,
      leafTitles: leafTitles(db, project),
      compactionEntries: byKind.compaction,
    });
    return {
      summary: summaryOf(sessionId, files, accounting),
      lastResponseHasToolCalls: accounting.lastResponseHasToolCalls,
    };
  })();
}

async function run(seed: number): Promise<void> {
  const rand = seededRandom(seed);
  const root = join(dir, `projects-${seed}`);
  const dbPath = join(dir, `memd-${seed}.sqlite`);
  const project = join(root, '-work-p');
  mkdirSync(project, { recursive: true });
  const writers = [new Writer(rand, 's1', 'a'), new Writer(rand, 's2', 'b')];
  const paths = new Map<Writer, string[]>();
  for (const writer of writers) paths.set(writer, [join(project, `${writer.sessionId}.jsonl`)]);
  // A partial last line per file, finished by the next append.
  const pending = new Map<string, string>();
  const extractions = new Map<string, LastExtraction>();

  let store = openStore(dbPath, fakeLogger());
  const start = (): Ingestor =>
    createIngestor({
      db: store.db,
      bus,
      log: fakeLogger(),
      clock: () => Date.now(),
      projectsDir: root,
      onSessionsChanged: () => {},
      parseInWorker: false,
      // Small commits, or ones of many entries (a file read again from its start then holds its
      // compactions mid-commit, where the context is counted from the commit's own rows).
      commitBytes: seed % 2 === 0 ? 2_000 : 40_000,
      observer: aggregates(),
    });
  // A small window, so that counting from the last rows is taken (and checked) often.
  const aggregates = () =>
    createAggregateStore({
      db: store.db,
      lastExtraction: (id) => extractions.get(id) ?? null,
      contextWindow: 70 + Math.floor(seed % 5) * 20,
      recountSliceRows: 7 + (seed % 5),
    });
  const owedCounts = () =>
    store.db
      .prepare("SELECT COUNT(*) FROM session_aggregates WHERE json_extract(state, '$.context') IS NULL")
      .pluck()
      .get() as number;
  const backgroundCounts = async () => {
    for (let turn = 0; turn < SETTLE_TURNS && owedCounts() > 0; turn++)
      await new Promise((resolve) => setImmediate(resolve));
  };
  let ingest = start();

  const check = (step: string) => {
    const transcripts = createTranscripts({ db: store.db });
    const store2 = aggregates();
    // The listing's columns agree with the files rows, in the listing's order.
    const order = (a: { lastActivity: string | null; sessionId: string }, b: typeof a) =>
      (b.lastActivity ?? '') < (a.lastActivity ?? '')
        ? -1
        : (b.lastActivity ?? '') > (a.lastActivity ?? '')
          ? 1
          : a.sessionId < b.sessionId
            ? -1
            : 1;
    const index = listSessions(store.db)
      .map(({ sessionId, project, lastActivity, allGone, entries, badLines }) => ({
        sessionId,
        project,
        lastActivity,
        allGone,
        entries,
        badLines,
      }))
      .sort(order);
    expect(store2.page({ all: true, limit: 1_000 }).rows, `seed ${seed}, ${step}, listing`).toEqual(index);
    for (const { sessionId } of listSessions(store.db)) {
      const expected = fromScratch(store, sessionId, extractions.get(sessionId) ?? null);
      const actual = summarizeSession(transcripts, store2, sessionId, ENV);
      if (process.env.MEMD_PROPERTY_TRACE && JSON.stringify(actual) !== JSON.stringify(expected?.summary)) {
        const row = store.db
          .prepare('SELECT state FROM session_aggregates WHERE session_id = ?')
          .pluck()
          .get(sessionId) as string;
        const main = sessionFiles(store.db, sessionId).find((f) => f.agentId === null);
        const entries = main ? loadFileEntries(store.db, main.id) : [];
        console.log('STORED', JSON.stringify(JSON.parse(row).context));
        console.log('SCRATCH', JSON.stringify(contextFromScratch(entries, extractions.get(sessionId) ?? null)));
        console.log(
          'TAIL',
          JSON.stringify(
            entries
              .slice(-12)
              .map((e) => [
                e.offset,
                e.type,
                e.subtype,
                e.uuid,
                e.parentUuid,
                e.messageId,
                e.toolUses.length,
                e.isSidechain,
                e.isCompactSummary,
              ]),
          ),
        );
      }
      expect(actual, `seed ${seed}, ${step}, session ${sessionId}`).toEqual(expected?.summary);
      // What the extraction triggers read of the aggregate besides the summary.
      const counted = store2.read(sessionId);
      const toolCalls = counted === undefined ? undefined : accountingOf(counted, ENV).lastResponseHasToolCalls;
      expect(toolCalls, `seed ${seed}, ${step}, session ${sessionId}, lastResponseHasToolCalls`).toBe(
        expected?.lastResponseHasToolCalls,
      );
    }
    checkSearchIndex(store, `seed ${seed}, ${step}`);
  };

  for (let step = 0; step < STEPS; step++) {
    const writer = writers[Math.floor(rand() * writers.length)] as Writer;
    const files = paths.get(writer) as string[];
    const roll = rand();
    let touched: string[] = [];
    let label = '';
    if (roll < 0.62) {
      // Append to the main transcript, or to a sub-agent or compaction agent file.
      let path = files[0] as string;
      if (rand() < 0.25) {
        if (files.length === 1 || rand() < 0.3) {
          const agent = rand() < 0.3 ? `agent-acompact-${files.length}` : `agent-${files.length}`;
          files.push(join(project, writer.sessionId, 'subagents', `${agent}.jsonl`));
        }
        path = files[1 + Math.floor(rand() * (files.length - 1))] as string;
      }
      const isMain = path === files[0];
      const lines: Raw[] = [];
      const count = 1 + Math.floor(rand() * 12);
      for (let i = 0; i < count; i++) lines.push(...(isMain ? writer.next() : writer.response(true)));
      let text = (pending.get(path) ?? '') + lines.map((line) => `${JSON.stringify(line)}\n`).join('');
      pending.delete(path);
      if (rand() < 0.2 && text.length > 10) {
        const cut = text.length - 1 - Math.floor(rand() * Math.min(40, text.length - 2));
        pending.set(path, text.slice(cut));
        text = text.slice(0, cut);
      }
      mkdirSync(dirname(path), { recursive: true });
      appendFileSync(path, text);
      touched = [path];
      label = `append ${count} to ${path.slice(root.length)}`;
    } else if (roll < 0.7) {
      // Truncate a file to an earlier line boundary.
      const path = files[Math.floor(rand() * files.length)] as string;
      let text = '';
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        continue;
      }
      const ends = [...text.matchAll(/\n/g)].map((match) => (match.index ?? 0) + 1);
      const to = ends.length === 0 ? 0 : (ends[Math.floor(rand() * ends.length)] as number);
      truncateSync(path, to);
      pending.delete(path);
      touched = [path];
      label = `truncate ${path.slice(root.length)} to ${to}`;
    } else if (roll < 0.76) {
      // Replace the main transcript with fresh content.
      const path = files[0] as string;
      const lines = [...writer.prompt(), ...writer.response()];
      writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      pending.delete(path);
      touched = [path];
      label = `replace ${path.slice(root.length)}`;
    } else if (roll < 0.82 && files.length > 1) {
      const path = files.pop() as string;
      try {
        unlinkSync(path);
      } catch {
        // Never written.
      }
      pending.delete(path);
      touched = [path];
      label = `delete ${path.slice(root.length)}`;
    } else if (roll < 0.88) {
      // An extraction recorded at the newest indexed entry, as the extraction service records one.
      const newest = store.db
        .prepare(
          'SELECT e.uuid, e.offset FROM entries e JOIN files f ON f.id = e.file_id WHERE f.session_id = ? AND f.agent_id IS NULL AND e.uuid IS NOT NULL ORDER BY e.offset DESC LIMIT 1',
        )
        .get(writer.sessionId) as { uuid: string; offset: number } | undefined;
      extractions.set(writer.sessionId, {
        ...(newest === undefined ? {} : { uuid: newest.uuid, atOffset: newest.offset }),
        contextTokens: Math.floor(rand() * 50_000),
      });
      label = `extraction of ${writer.sessionId}`;
    } else {
      await ingest.stop();
      store.close();
      store = openStore(dbPath, fakeLogger());
      ingest = start();
      const found = await scanTranscripts(root);
      ingest.backfill(found, []);
      label = 'restart';
    }
    for (const path of touched) ingest.touch(path);
    await ingest.idle();
    // Every other step, the counts commits owed are left to finish in the background first
    // (in slices, RECOUNT_SLICE_ROWS): the reads then check what they wrote, not a count of their own.
    if (step % 2 === 1) await backgroundCounts();
    if (process.env.MEMD_PROPERTY_TRACE) console.log(`step ${step}: ${label}`);
    check(`step ${step} (${label})`);
  }
  await ingest.stop();
  store.close();
}

/**
 * The search index holds exactly the texts of each file's committed lines, as extracted from the
 * file now (ingest keeps it in the same transactions; a file read again drops its range first).
 * A deleted file's texts stay (they are checked while the file exists).
 */
function checkSearchIndex(store: Store, where: string): void {
  const files = store.db
    .prepare('SELECT id, path, committed_offset AS committed, search_offset AS searched, gone FROM files')
    .all() as {
    id: number;
    path: string;
    committed: number;
    searched: number;
    gone: number;
  }[];
  // Other files' lines may lie between a file's first and last entries: only its own are its.
  const indexed = store.db
    .prepare(
      'SELECT rowid FROM search_fts WHERE rowid BETWEEN ? AND ? AND (rowid >> 3) IN (SELECT rowid FROM entries WHERE file_id = ?) ORDER BY rowid',
    )
    .pluck()
    .safeIntegers(true);
  const orphans = store.db
    .prepare('SELECT count(*) FROM search_fts WHERE (rowid >> 3) NOT IN (SELECT rowid FROM entries)')
    .pluck()
    .get();
  expect(orphans, `${where}, texts whose entry is gone`).toBe(0);
  const entryRowid = store.db.prepare('SELECT rowid FROM entries WHERE file_id = ? AND offset = ?').pluck();
  const entryBounds = store.db.prepare('SELECT min(rowid) AS first, max(rowid) AS last FROM entries WHERE file_id = ?');
  for (const file of files) {
    expect(file.searched, `${where}, search offset of ${file.path}`).toBe(file.committed);
    if (file.gone === 1) continue;
    const expected: bigint[] = [];
    let offset = 0;
    for (const line of readFileSync(file.path).subarray(0, file.committed).toString('utf8').split('\n')) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = null;
      }
      const texts = searchTexts(value);
      const rowid = texts.length === 0 ? undefined : (entryRowid.get(file.id, offset) as number | undefined);
      if (texts.length > 0) expect(rowid, `${where}, the entry of ${file.path}:${offset}`).toBeDefined();
      for (const { kind } of texts) expected.push(searchRowId(rowid as number, kind));
      offset += Buffer.byteLength(line) + 1;
    }
    const bounds = entryBounds.get(file.id) as { first: number | null; last: number | null };
    const [first, last] =
      bounds.first === null || bounds.last === null ? [0, -1] : searchRowRange(bounds.first, bounds.last);
    if (process.env.MEMD_PROPERTY_TRACE) {
      const got = new Set((indexed.all(first, last, file.id) as bigint[]).map(String));
      const want = new Set(expected.map(String));
      console.log(
        'MISSING',
        [...want].filter((id) => !got.has(id)),
        'EXTRA',
        [...got].filter((id) => !want.has(id)),
        'committed',
        file.committed,
      );
    }
    expect(
      (indexed.all(first, last, file.id) as bigint[]).map(String),
      `${where}, search texts of ${file.path}`,
    ).toEqual(expected.sort((a, b) => (a < b ? -1 : 1)).map(String));
  }
}

describe('persisted session aggregates and the search index', () => {
  it(
    `equal a computation from scratch after random appends, truncations, replacements, deletions, extractions and restarts (${SEEDS} seeds × ${STEPS} steps)`,
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'memd-aggregates-'));
      const first = Number(process.env.MEMD_PROPERTY_FIRST_SEED ?? 1);
      for (let seed = first; seed < first + SEEDS; seed++) await run(seed);
    },
    Math.max(120_000, SEEDS * STEPS * 100),
  );
});
