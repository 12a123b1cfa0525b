/**
 * Who may call whom in daemon/ (issue 30), the one table of it: for each daemon folder, whether it
 * is infrastructure or a domain, and the daemon folders its files may import, each with what for.
 * Allow-only: imports.ts fails an import between two folders that the importing folder's row does
 * not name, and a named folder that none of its files imports (so that the table says what the code
 * does); `shared/`, Node and the folder's own files are always allowed. docs/architecture.md shows
 * the table in a generated block (architecture-doc.ts renders it; its test compares them).
 *
 * Rows go in the order of the flow (infrastructure, then each domain after those it calls), which
 * is the order the doc lists them in. A reason is empty where the folder's name says it all.
 */

export type Layer = 'infrastructure' | 'domain';

export interface MayCallRow {
  layer: Layer;
  /** Imported folder → what for (one line; empty when obvious). */
  calls: Readonly<Record<string, string>>;
}

export type MayCallTable = Readonly<Record<string, MayCallRow>>;

export const MAY_CALL: MayCallTable = {
  log: { layer: 'infrastructure', calls: {} },
  fs: { layer: 'infrastructure', calls: {} },
  config: { layer: 'infrastructure', calls: {} },
  bus: { layer: 'infrastructure', calls: {} },
  workers: { layer: 'infrastructure', calls: {} },
  store: { layer: 'infrastructure', calls: { log: '' } },
  llm: { layer: 'infrastructure', calls: { log: '' } },
  ingest: {
    layer: 'domain',
    calls: {
      store: 'the rows it writes',
      bus: '`transcripts.committed`',
      fs: 'regular-file reads inside the projects dir',
      log: '',
      workers: 'the parse worker',
    },
  },
  // The layout rules moved to shared/transcript/layout.ts in issue 30; the reaction to a rebuilt store subscribes on the domain bus.
  transcripts: {
    layer: 'domain',
    calls: { store: 'the read SQL over the rows', workers: 'loads in slices', bus: '`store.rebuilt`' },
  },
  sessions: {
    layer: 'domain',
    calls: {
      transcripts: '',
      // Undocumented until issue 30: the aggregates are folded inside ingest's commit, so they are its observer.
      ingest: "the aggregates are the writer's `CommitObserver`; `statesWanted` asks ingest's progress",
      store: 'the aggregate and file rows',
      bus: '`session.updated`, `session.state`',
      log: '',
    },
  },
  extraction: {
    layer: 'domain',
    // The doc's "ingest (layout)" was dropped in issue 30: no file of extraction/ imports ingest.
    calls: {
      transcripts: 'the facts and messages it summarizes',
      // Issue 30: extraction is built before sessions (whose summaries show its state), and its triggers read these.
      sessions: 'the aggregates and windows its triggers read (`part.ts`)',
      llm: 'the anthropic extractor; the spend ledger',
      workers: 'the offline worker, slices',
      fs: 'atomic `summary.md`',
      bus: '',
      log: '',
    },
  },
  compaction: {
    layer: 'domain',
    calls: {
      transcripts: '',
      extraction: 'the session memory it compacts with: `template.ts`; whether a plan step is done: `progress.ts`',
      llm: 'the anthropic summarizer; the spend ledger',
      fs: 'tool-result files',
      bus: '`compaction.ready`, `session.state`',
      log: '',
    },
  },
  memory: { layer: 'domain', calls: { transcripts: 'rewind reads checkpoints', fs: 'safe paths, atomic writes' } },
  handoff: {
    layer: 'domain',
    calls: {
      transcripts: 'the facts and the conversation',
      compaction: 'what a compaction lost and kept: `lost.ts`, `survival.ts`',
      memory: 'memdir for SessionStart',
      llm: 'the anthropic narrator; the spend ledger',
      fs: 'the work tree, atomic writes',
      // Allowed in issue 30 (the doc named neither): both are infrastructure the other domains use alike.
      store: "the index's row types",
      workers: "the transcript's tail read in slices",
      bus: 'its reaction to commits (`reactions.ts`)',
      log: '',
    },
  },
  search: {
    layer: 'domain',
    calls: {
      ingest: 'line parsing; the index follower it is',
      transcripts: 'the context around a hit',
      sessions: 'project names and titles on hits (`part.ts`)',
      store: "the search index's row layout and write side",
      workers: 'the query processes',
      log: '',
    },
  },
  // Issue 33: what the prompt and failure hooks inject, over search's passages.
  recall: {
    layer: 'domain',
    calls: {
      search: 'the passages for a question (`passages.ts`, the query service)',
      transcripts: "a past failure's course, and an error's key line (`failure.ts`)",
      memory: "the project's memories (memdir)",
      log: '',
    },
  },
  export: { layer: 'domain', calls: { transcripts: '', fs: 'regular-file reads', log: '' } },
  usage: {
    layer: 'domain',
    calls: {
      store: 'the entry rows it follows',
      ingest: 'the index follower it is (`IndexFollower`)',
      sessions: 'project names (`part.ts`)',
      log: '',
      workers: 'a report by block reads its responses in slices',
    },
  },
  archive: {
    layer: 'domain',
    // Decided in issue 30: archive follows what ingest committed and removes what every other part kept.
    calls: {
      ingest: "the index's file identity check; the index follower it is",
      transcripts: 'the session files it archives (`part.ts`)',
      sessions: 'titles and project names for its listings (`part.ts`)',
      memory: "rewind's undo points, which forget removes",
      store: "the index's row types; the search writer, for forget",
      fs: '',
      log: '',
    },
  },
  // Issue 35: sync across a user's machines over a folder an engine carries.
  sync: {
    layer: 'domain',
    calls: {
      archive: 'the book it mirrors, restore of a decoded session, forget for a tombstone',
      ingest: 'the decoded transcripts it hands over; the index follower it is',
      memory: 'memdir: memory files merged from other machines (`memdir-*.ts`)',
      fs: 'atomic writes, regular-file reads',
      workers: 'manifests checked and merged in slices',
      log: '',
    },
  },
  lifecycle: {
    layer: 'domain',
    calls: {
      config: '',
      fs: 'private dirs',
      log: '',
      store: 'opened and checked at start',
      // Issue 30: the record every part is built from (`base.ts`) and the daemon's shutdown steps (`daemon-shutdown.ts`).
      bus: 'both buses, made for every part; `daemon.stopping`',
      llm: 'model access, chosen once for every part',
    },
  },
  rpc: {
    layer: 'domain',
    calls: {
      sessions: '',
      compaction: '',
      extraction: '',
      memory: '',
      handoff: '',
      search: '',
      recall: '',
      export: '',
      usage: '',
      archive: '',
      sync: "`sync.status`, `memdir.conflicts`, `memdir.resolve`; `archive.restore` of another machine's session",
      bus: 'subscriptions',
      log: '',
    },
  },
  '(main)': {
    layer: 'domain',
    calls: {
      store: '',
      ingest: '',
      transcripts: '',
      sessions: '',
      extraction: '',
      compaction: '',
      memory: '',
      handoff: '',
      search: '',
      recall: '',
      export: '',
      usage: '',
      archive: '',
      sync: "this machine's device (named in tombstones; the usage book ranks by it) and the sync part",
      lifecycle: '',
      rpc: '',
    },
  },
};

/** The folders of one layer, in the table's order. */
export function foldersOf(table: MayCallTable, layer: Layer): string[] {
  return Object.entries(table)
    .filter(([, row]) => row.layer === layer)
    .map(([folder]) => folder);
}

/** Daemon folders that know nothing of memd's domains: they could serve another daemon unchanged. */
export const INFRASTRUCTURE: readonly string[] = foldersOf(MAY_CALL, 'infrastructure');
export const DOMAINS: readonly string[] = foldersOf(MAY_CALL, 'domain');
