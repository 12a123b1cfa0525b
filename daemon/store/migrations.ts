/**
 * Numbered schema migrations. `user_version` holds the schema version; each migration runs in
 * its own transaction. Everything stored is derivable from transcripts, so a database from a
 * newer memd is rebuilt rather than guessed at.
 */
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';
import { INDEX_MIGRATIONS } from './migrations-index.js';
import { SYNC_MIGRATIONS } from './migrations-sync.js';

/**
 * The search index emptied, in its current shape (no token positions, keyed by entry: 13), and every
 * file's search offset reset, so that the search index builder reads every file again in the
 * background: the migrations that change what is indexed take this.
 */
const REBUILD_SEARCH_INDEX = `
      DROP TABLE search_fts;
      CREATE VIRTUAL TABLE search_fts USING fts5(text, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2');
      UPDATE files SET search_offset = 0;
    `;

/** Migration 28: memory_spend keyed by (day, session_id, kind), its rows kept as extractions. */
function addSpendKind(db: Database.Database): void {
  const columns = db.pragma('table_info(memory_spend)') as { name: string }[];
  if (columns.some((column) => column.name === 'kind')) return;
  db.exec(`
    CREATE TABLE memory_spend_by_kind (
      day                TEXT NOT NULL,
      session_id         TEXT NOT NULL,
      kind               TEXT NOT NULL,
      cost_usd           REAL NOT NULL,
      runs               INTEGER NOT NULL,
      input_tokens       INTEGER NOT NULL DEFAULT 0,
      output_tokens      INTEGER NOT NULL DEFAULT 0,
      cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
      cache_write_tokens INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (day, session_id, kind)
    ) STRICT, WITHOUT ROWID;
    INSERT INTO memory_spend_by_kind
      SELECT day, session_id, 'extraction', cost_usd, runs, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
      FROM memory_spend;
    DROP TABLE memory_spend;
    ALTER TABLE memory_spend_by_kind RENAME TO memory_spend;
    CREATE INDEX memory_spend_session ON memory_spend (session_id);
  `);
}

/** Every migration in order: the index's (1-11), then the search index, the usage book, the archive and what came after. */
export const MIGRATIONS: readonly Migration[] = [
  ...INDEX_MIGRATIONS,
  {
    version: 12,
    name: 'full-text search of every session',
    // Contentless (the transcripts hold the text; snippets are made from them): the index is a
    // fraction of the text. The rowid says where a text came from (store/search-row.ts).
    // search_offset: how far each file's lines are in the index; files ingested before this
    // migration are at 0 and the search index builder reads them in the background.
    sql: `
      CREATE VIRTUAL TABLE search_fts USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
      ALTER TABLE files ADD COLUMN search_offset INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 13,
    name: 'the search index without token positions, keyed by entry',
    // detail=none keeps which rows hold a word but not where in them: a third of the size
    // (phrases and NEAR are checked on the line's text instead: shared/search/query-match.ts). The
    // rowid is the line's entry's (store/search-row.ts): dense keys, a byte or two each in the
    // index against five or six for (file, byte offset). The old index is dropped and the search
    // index builder reads every file again in the background.
    sql: REBUILD_SEARCH_INDEX,
  },
  {
    version: 14,
    name: 'the usage book: responses counted across files, by quarter hour',
    // daemon/usage/book.ts: each file's best entry of each API response (key: a 64-bit hash of
    // message.id + requestId), `counted` on the one that counts across files, and the counted usage
    // summed by quarter hour, project and model, which usage.report reads. Entries are kept by file
    // (a commit's rows are written together) and found by key, and the one counted, through the
    // index. usage_files keeps each folded file's path (ccusage's tie-break) and project, so that a
    // removed file's share can be taken back without its files row, and how far the book has folded
    // it (daemon/usage/follower.ts reads what ingest committed, outside its transactions; files
    // indexed before this have no row, so an older database is counted in the background).
    sql: `
      CREATE TABLE usage_files (
        id             INTEGER PRIMARY KEY,
        path           TEXT NOT NULL,
        project        TEXT NOT NULL,
        generation     INTEGER NOT NULL DEFAULT -1,
        folded_through INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE usage_candidates (
        file_id        INTEGER NOT NULL,
        key            INTEGER NOT NULL,
        offset         INTEGER NOT NULL,
        slot           INTEGER NOT NULL,
        sidechain      INTEGER NOT NULL,
        model          TEXT NOT NULL,
        input          INTEGER NOT NULL,
        output         INTEGER NOT NULL,
        cache_creation INTEGER NOT NULL,
        cache_read     INTEGER NOT NULL,
        cache_5m       INTEGER NOT NULL,
        cache_1h       INTEGER NOT NULL,
        counted        INTEGER NOT NULL,
        PRIMARY KEY (file_id, key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX usage_candidates_key ON usage_candidates (key, counted);
      CREATE TABLE usage_slots (
        slot           INTEGER NOT NULL,
        project        TEXT NOT NULL,
        model          TEXT NOT NULL,
        responses      INTEGER NOT NULL,
        input          INTEGER NOT NULL,
        output         INTEGER NOT NULL,
        cache_creation INTEGER NOT NULL,
        cache_read     INTEGER NOT NULL,
        cache_5m       INTEGER NOT NULL,
        cache_1h       INTEGER NOT NULL,
        PRIMARY KEY (slot, project, model)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 15,
    name: 'the archive of transcripts and tool results',
    // One row per archived file (daemon/archive/store.ts): how many of the source's bytes its
    // archive holds, and how long the archive file is with them. Written after the archive's bytes
    // are flushed, so a crash leaves at most a torn tail past archive_bytes, cut at the next start.
    sql: `
      CREATE TABLE archive_files (
        path          TEXT PRIMARY KEY,
        session_id    TEXT NOT NULL,
        project       TEXT NOT NULL,
        rel           TEXT NOT NULL,
        kind          TEXT NOT NULL,
        generation    INTEGER NOT NULL,
        source_bytes  INTEGER NOT NULL,
        archive_bytes INTEGER NOT NULL,
        mtime_ms      INTEGER NOT NULL,
        archived_at   INTEGER NOT NULL,
        pruned_at     INTEGER
      ) STRICT;
      CREATE INDEX archive_files_session ON archive_files (session_id);
    `,
  },
  {
    version: 16,
    name: 'the search index rebuilt under wider redaction',
    // shared/text/redact.ts's REDACTION_VERSION 2 (issue 27) redacts shapes the index's texts were
    // not redacted of (PGPASSWORD=…, GITHUB_TOKEN=…, connection strings, AWS secret keys…): a
    // secret indexed under the older rules could be found by searching for it. The index is
    // emptied and the search index builder reads every file again in the background, as after 13.
    // The next widening of the shapes takes a migration like this one.
    sql: REBUILD_SEARCH_INDEX,
  },
  {
    version: 17,
    name: 'bad timestamps counted, and files with a far-future one read again',
    // Ingest now keeps a timestamp only when it is good, in its canonical form, and counts the bad
    // ones (shared/transcript/timestamp.ts, issue 27). Rows indexed before hold whatever the line
    // said. A file whose newest timestamp (files.last_activity, the greatest string) is not a good
    // canonical one (`2999-…`, text) is read again once: an empty head hash as in migration 7, and
    // a last_seen of 0 so that it is not taken as read to its end; that replaces its rows, its
    // activity, its session's aggregate and its share of the usage book. Timestamps that sort
    // below the newest (`+275760-…`, `-271821-…`, `0000-…`, `1999-…`) stay in rows until their
    // file is read again; the usage book never reads their quarter hours (book.ts). Finding those
    // would scan every entry at start (5 s for 3 M entries, measured), longer than a client waits.
    sql: `
      ALTER TABLE files ADD COLUMN bad_timestamps INTEGER NOT NULL DEFAULT 0;
      UPDATE files SET head_hash = '', last_seen = 0 WHERE head_len > 0 AND last_activity IS NOT NULL AND NOT (
        last_activity GLOB '2[0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'
        AND last_activity >= '2000-01-01T00:00:00.000Z' AND last_activity <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 day')
        AND strftime('%Y-%m-%dT%H:%M:%fZ', last_activity) = last_activity);
    `,
  },
  {
    version: 18,
    name: 'sub-agent responses nested in progress entries counted',
    // Ingest now keeps the ids, model and usage of a sub-agent's response that Claude Code
    // 2.1.3x-2.1.4x nests in an `agent_progress` entry of the main transcript (parse.ts, issue 28):
    // the usage book, usage.sidechain and the session's cost count it. Rows indexed before hold
    // none of it, so a main transcript with a progress entry is read again once, as in migration
    // 17 (its rows, its session's aggregate and its share of the book are replaced). EXISTS stops
    // at a file's first progress entry, which 2.1.x files hold within their first lines (hook and
    // tool progress); only main files without any are read through, sub-agent files never.
    sql: `
      UPDATE files SET head_hash = '', last_seen = 0 WHERE head_len > 0 AND agent_id IS NULL
        AND EXISTS (SELECT 1 FROM entries e WHERE e.file_id = files.id AND e.type = 'progress');
    `,
  },
  {
    version: 19,
    name: 'slash commands title sessions of commands only',
    // A session whose prompts are all slash commands is titled by the first command and its
    // arguments (prompt-text.ts commandTitle, issue 28). Rows indexed before hold no title for a
    // command echo, so a main transcript with no titled entry at all is read again once, as in
    // migration 17; files that have any title keep it and are not touched.
    sql: `
      UPDATE files SET head_hash = '', last_seen = 0 WHERE head_len > 0 AND agent_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.file_id = files.id AND e.title_kind IS NOT NULL);
    `,
  },
  {
    version: 20,
    name: 'context windows Claude Code stated per session',
    // The window Claude Code said it runs a session with (the status line's
    // context_window.context_window_size, a `[1m]` model id: sessions.get's `window` and `model`),
    // kept so that every surface and every threshold use it, across restarts (issue 28).
    sql: `
      CREATE TABLE IF NOT EXISTS session_windows (
        session_id TEXT PRIMARY KEY,
        window INTEGER NOT NULL,
        stated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 21,
    name: "the search index rebuilt with memd's own traffic as its own kind",
    // memd's MCP calls and their results, Reads of its handoff and session memory, and the context
    // its SessionStart hook gave are indexed as kind `memd` (shared/search/own-traffic.ts, issue 28),
    // which searches leave out unless asked for; the index made before holds them as tool calls and
    // outputs. It is emptied and the search index builder reads every file again in the background,
    // as after 16 (one pass over a file sees each call before its result).
    sql: REBUILD_SEARCH_INDEX,
  },
  {
    version: 22,
    name: 'the search index rebuilt with whole prompts, written files and thinking',
    // shared/search/text.ts now indexes a prompt or an assistant message whole up to 64,000
    // characters (8,000 before), what Write, Edit, MultiEdit and NotebookEdit wrote (kind
    // `write`) and the model's thinking (kind `thinking`), issue 28. Lines indexed before hold
    // none of it, so the index is emptied and the search index builder reads every file again in
    // the background, as after 16. (Right after 21, on an upgrade over both, this second emptying costs nothing: the builder runs after the migrations.)
    sql: REBUILD_SEARCH_INDEX,
  },
  {
    version: 23,
    name: 'transcripts Claude Code deleted, on the record',
    // Claude Code deletes transcripts after cleanupPeriodDays and with `claude project purge` (issue
    // 31). Each file ingest marks gone is a row here, in the transaction that marks it: when, which
    // session and file, its bytes, and the bytes the archive held of it then; checked_at and verified
    // are set once the archive's copy was inflated (archive/deletions.ts). Files gone before this
    // migration are not on the record: when they went is not known.
    sql: `
      CREATE TABLE IF NOT EXISTS deleted_files (
        id          INTEGER PRIMARY KEY,
        path        TEXT NOT NULL,
        session_id  TEXT NOT NULL,
        project     TEXT NOT NULL,
        agent_id    TEXT,
        bytes       INTEGER NOT NULL,
        committed   INTEGER NOT NULL,
        gone_at     INTEGER NOT NULL,
        held_bytes  INTEGER,
        verified    INTEGER,
        problem     TEXT,
        checked_at  INTEGER
      ) STRICT;
      CREATE INDEX IF NOT EXISTS deleted_files_gone_at ON deleted_files (gone_at);
      CREATE INDEX IF NOT EXISTS deleted_files_session ON deleted_files (session_id);
      CREATE INDEX IF NOT EXISTS deleted_files_unchecked ON deleted_files (id) WHERE checked_at IS NULL;
    `,
  },
  {
    version: 24,
    name: "who wrote each session's summary.md",
    // Claude Code's own session memory writes the same file (issue 31): memd records the sha256 of
    // what it wrote, and who wrote the file as it last saw it (daemon/extraction/writer.ts).
    sql: `
      CREATE TABLE IF NOT EXISTS session_memory_writers (
        session_id TEXT PRIMARY KEY,
        writer TEXT NOT NULL,
        memd_sha256 TEXT,
        memd_previous_sha256 TEXT
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 25,
    name: 'the counted usage entries by quarter hour',
    // usage.report by block (issue 31) reads the counted responses of a window one by one, with
    // their entry's timestamp; without this index it scanned every candidate through the key index
    // (a synthetic book of 500,000, 83,340 of them in a 30-day window: 5.3 s without, 1.4 s with it).
    // IF NOT EXISTS: a database set back to an older version (tests do) runs it again over the index.
    sql: `CREATE INDEX IF NOT EXISTS usage_candidates_slot ON usage_candidates (slot) WHERE counted = 1;`,
  },
  {
    version: 26,
    name: 'session-memory spend in tokens',
    // Issue 32: the ledger shows what the anthropic summarizer's calls were made of, cache writes
    // and reads apart, so that a user (and a test) can see the conversation prefix being read
    // from the cache instead of paid in full. Rows before this count 0 tokens.
    // Columns added where missing (db.ts): a database set back to an older version (tests do) runs it again.
    addColumns: ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'].map((column) => ({
      table: 'memory_spend',
      column,
      definition: 'INTEGER NOT NULL DEFAULT 0',
    })),
    sql: '',
  },
  {
    version: 27,
    name: "the survival score of Claude Code's compactions",
    // Issue 32: which of the session's facts each recorded compaction's summary kept (JSON of a
    // Survival), by compact_records id; pruned with its record. A table rather than a column so that
    // a database set back to an older version (tests do) runs it again without a duplicate column.
    sql: `
      CREATE TABLE IF NOT EXISTS compact_survival (
        record_id INTEGER PRIMARY KEY,
        survival  TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 28,
    name: 'the spend ledger by kind',
    // Issue 32: the anthropic compaction summary and handoff narrative spend on the user's key as
    // extraction does; the ledger keeps each kind apart (its key gains `kind`), and every row
    // before this was an extraction's. SQLite cannot change a primary key: the table is rebuilt,
    // only when it lacks `kind` (a database set back to an older version, as tests do, has it).
    sql: '',
    apply: addSpendKind,
  },
  {
    version: 29,
    name: 'what recall injected in each session',
    // Issue 33: a passage goes into a session's context once, across daemon restarts too (it was
    // kept in memory). `at` orders a session's passages (the oldest go past a bound) and ages them out.
    sql: `
      CREATE TABLE IF NOT EXISTS recall_injected (
        session_id TEXT NOT NULL,
        key        TEXT NOT NULL,
        at         INTEGER NOT NULL,
        PRIMARY KEY (session_id, key)
      ) WITHOUT ROWID, STRICT;
      CREATE INDEX IF NOT EXISTS recall_injected_at ON recall_injected (at);
    `,
  },
  ...SYNC_MIGRATIONS,
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((max, migration) => Math.max(max, migration.version), 0);
