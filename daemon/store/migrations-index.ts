/**
 * Migrations 1-11: the transcript index, session-memory jobs, hook records, titles and the
 * persisted session aggregates (migrations.ts lists them all, with those that came after).
 */
import type { Migration } from './migration.js';

export const INDEX_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'daemon metadata',
    sql: `
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'transcript index',
    // dev and ino are decimal text: inode numbers can exceed 2^53 and must compare exactly.
    // entries are keyed by (file_id, offset); a rowid table, because its rows are too wide for
    // WITHOUT ROWID to pay (inserts measured 30% slower). bad_lines are few and narrow.
    // Tool uses and results and the compact boundary are JSON text (NULL when none): most entries
    // have none, and readers always load them with their entry.
    sql: `
      CREATE TABLE files (
        id               INTEGER PRIMARY KEY,
        path             TEXT NOT NULL UNIQUE,
        project          TEXT NOT NULL,
        session_id       TEXT NOT NULL,
        agent_id         TEXT,
        is_sidechain     INTEGER NOT NULL,
        dev              TEXT NOT NULL,
        ino              TEXT NOT NULL,
        size             INTEGER NOT NULL,
        head_len         INTEGER NOT NULL,
        head_hash        TEXT NOT NULL,
        committed_offset INTEGER NOT NULL,
        bytes_read       INTEGER NOT NULL,
        entries          INTEGER NOT NULL,
        bad_lines        INTEGER NOT NULL,
        generation       INTEGER NOT NULL,
        gone             INTEGER NOT NULL,
        first_seen       INTEGER NOT NULL,
        last_seen        INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX files_session ON files (session_id);

      CREATE TABLE entries (
        file_id              INTEGER NOT NULL,
        offset               INTEGER NOT NULL,
        length               INTEGER NOT NULL,
        type                 TEXT NOT NULL,
        subtype              TEXT,
        uuid                 TEXT,
        parent_uuid          TEXT,
        logical_parent_uuid  TEXT,
        timestamp            TEXT,
        session_id           TEXT,
        chars                INTEGER NOT NULL,
        est_tokens           INTEGER NOT NULL,
        message_id           TEXT,
        request_id           TEXT,
        model                TEXT,
        usage_input          INTEGER,
        usage_output         INTEGER,
        usage_cache_creation INTEGER,
        usage_cache_read     INTEGER,
        usage_cache_5m       INTEGER,
        usage_cache_1h       INTEGER,
        tool_uses            TEXT,
        tool_results         TEXT,
        is_sidechain         INTEGER NOT NULL,
        is_meta              INTEGER NOT NULL,
        is_compact_summary   INTEGER NOT NULL,
        cwd                  TEXT,
        git_branch           TEXT,
        title_kind           TEXT,
        title                TEXT,
        compact              TEXT,
        PRIMARY KEY (file_id, offset)
      ) STRICT;

      CREATE TABLE bad_lines (
        file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
        offset  INTEGER NOT NULL,
        length  INTEGER NOT NULL,
        reason  TEXT NOT NULL,
        seen_at INTEGER NOT NULL,
        PRIMARY KEY (file_id, offset)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX bad_lines_seen ON bad_lines (seen_at);
    `,
  },
  {
    version: 3,
    name: 'last activity per transcript file',
    // The newest entry timestamp of each file, kept at commit time, so that sessions.list can pick
    // the most recent sessions without summarizing every session (a long history takes seconds).
    sql: `
      ALTER TABLE files ADD COLUMN last_activity TEXT;
      UPDATE files SET last_activity = (SELECT MAX(timestamp) FROM entries WHERE entries.file_id = files.id);
    `,
  },
  {
    version: 4,
    name: 'session-memory jobs and extractions',
    // Jobs outlive the daemon, so an extraction cut short by a crash runs again after a restart.
    // The partial unique index is the rule "one unfinished job per session", kept by SQLite itself.
    // memory_extractions holds the last extraction of each session: where it stopped (the last
    // summarized entry's uuid, and its offset for when the uuid is gone) and the context tokens
    // then, which the triggers measure growth from and session-memory compaction keeps after.
    // Unlike the index it cannot be rebuilt from the transcripts, but losing it costs little: a
    // session without a record is extracted afresh once it has 10,000 tokens. Times are epoch ms;
    // cost_usd is NULL when the summarizer's model has no known price.
    sql: `
      CREATE TABLE memory_jobs (
        id         INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        state      TEXT NOT NULL CHECK (state IN ('queued', 'running', 'deferred', 'done', 'failed')),
        reason     TEXT NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        not_before INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX memory_jobs_unfinished ON memory_jobs (session_id)
        WHERE state IN ('queued', 'running', 'deferred');
      CREATE INDEX memory_jobs_state ON memory_jobs (state, not_before);

      CREATE TABLE memory_extractions (
        session_id     TEXT PRIMARY KEY,
        last_uuid      TEXT,
        last_offset    INTEGER,
        context_tokens INTEGER NOT NULL,
        extracted_at   INTEGER NOT NULL,
        summarizer     TEXT NOT NULL,
        input_tokens   INTEGER NOT NULL DEFAULT 0,
        output_tokens  INTEGER NOT NULL DEFAULT 0,
        cost_usd       REAL
      ) STRICT;
    `,
  },
  {
    version: 5,
    name: 'totals of pruned session-memory jobs',
    // Finished jobs are pruned to the most recent few hundred, so that the table (and the
    // per-state counts daemon.status reads on every call) stays small in a daemon that runs for
    // months; what was pruned is still counted here.
    sql: `
      CREATE TABLE memory_job_totals (
        state  TEXT PRIMARY KEY CHECK (state IN ('done', 'failed')),
        pruned INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 6,
    name: 'hook records: SessionStart injections and PostCompact summaries',
    // One expected injection per session (the latest SessionStart that gave context): injected is
    // NULL until an entry after it shows whether the context reached the transcript. compact_records
    // keep each PostCompact's summary and what it lost (JSON), for memctl status and handoffs.
    sql: `
      CREATE TABLE handoff_injections (
        session_id  TEXT PRIMARY KEY,
        source      TEXT NOT NULL,
        marker      TEXT NOT NULL,
        expected_at INTEGER NOT NULL,
        injected    INTEGER,
        checked_at  INTEGER
      ) STRICT;
      CREATE TABLE compact_records (
        id          INTEGER PRIMARY KEY,
        session_id  TEXT NOT NULL,
        trigger     TEXT NOT NULL,
        recorded_at INTEGER NOT NULL,
        summary     TEXT NOT NULL,
        lost        TEXT
      ) STRICT;
      CREATE INDEX compact_records_session ON compact_records (session_id, recorded_at);
    `,
  },
  {
    version: 7,
    name: 'titles from summary entries and first prompts',
    // leaf_uuid is a `summary` entry's leafUuid (Claude Code 1.0.x names a session from the next
    // session's file); title_kind gains 'summary' and 'prompt'. Rows indexed before this carry
    // neither, so every file is read again once: an empty head hash fails the identity check and
    // the tailer re-indexes the file from 0, replacing its rows in one transaction.
    sql: `
      ALTER TABLE entries ADD COLUMN leaf_uuid TEXT;
      CREATE INDEX entries_leaf ON entries (leaf_uuid) WHERE leaf_uuid IS NOT NULL;
      UPDATE files SET head_hash = '' WHERE head_len > 0;
    `,
  },
  {
    version: 8,
    name: 'persisted session aggregates',
    // One row per session: its accounting folded entry by entry (shared/transcript/aggregate.ts),
    // JSON because only the daemon reads it and its shape follows the code (a version inside says
    // which). session_responses is the book of counted responses by message.id + requestId, so
    // that an entry of a response already counted replaces its usage rather than adding to it.
    // The listing's columns (project, last activity, gone, counts) are the files rows' totals,
    // kept with each commit, so that sessions.list pages through the index in SQL. Sessions
    // indexed before this get their columns here and their state the first time they are read.
    sql: `
      CREATE TABLE session_aggregates (
        session_id    TEXT PRIMARY KEY,
        state         TEXT NOT NULL,
        project       TEXT NOT NULL,
        last_activity TEXT,
        all_gone      INTEGER NOT NULL,
        entries       INTEGER NOT NULL,
        bad_lines     INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX session_aggregates_recent ON session_aggregates (coalesce(last_activity, '') DESC, session_id);
      INSERT INTO session_aggregates (session_id, state, project, last_activity, all_gone, entries, bad_lines)
        SELECT session_id, '', coalesce(MAX(CASE WHEN agent_id IS NULL THEN project END), MIN(project)), MAX(last_activity),
               MIN(gone), SUM(entries), SUM(bad_lines)
        FROM files GROUP BY session_id;
      CREATE TABLE session_responses (
        session_id     TEXT NOT NULL,
        key            TEXT NOT NULL,
        bucket         TEXT NOT NULL,
        model          TEXT NOT NULL,
        input          INTEGER NOT NULL,
        output         INTEGER NOT NULL,
        cache_creation INTEGER NOT NULL,
        cache_read     INTEGER NOT NULL,
        cache_5m       INTEGER NOT NULL,
        cache_1h       INTEGER NOT NULL,
        PRIMARY KEY (session_id, key)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 9,
    name: 'repeated entry strings stored once',
    // cwd, git branch and model repeat on nearly every line of a session (~8 % of the entries'
    // bytes at a heavy user's scale): rows written from here hold an id into `strings` and NULL
    // in the text column; rows written before keep their text, so readers take whichever is set
    // (entry-row.ts) and nothing is rewritten at upgrade.
    sql: `
      CREATE TABLE strings (
        id    INTEGER PRIMARY KEY,
        value TEXT NOT NULL UNIQUE
      ) STRICT;
      ALTER TABLE entries ADD COLUMN cwd_id INTEGER;
      ALTER TABLE entries ADD COLUMN branch_id INTEGER;
      ALTER TABLE entries ADD COLUMN model_id INTEGER;
    `,
  },
  {
    version: 10,
    name: 'the listing counts from an index',
    // sessions.list counts the sessions it shows and hides on every call; the rows hold each
    // session's state JSON before these columns, so the counts read the whole table (33 ms each
    // at 50,000 sessions). From this index they take 2 ms.
    sql: `
      CREATE INDEX session_aggregates_listing ON session_aggregates (project, all_gone, entries, bad_lines);
    `,
  },
  {
    version: 11,
    name: 'session-memory spend per day',
    // memory_extractions keeps only each session's last extraction; the daily budget and the
    // spend shown in status need every priced run, summed per local day and session (small: one
    // row per session and day it was extracted with a paid summarizer).
    sql: `
      CREATE TABLE memory_spend (
        day        TEXT NOT NULL,
        session_id TEXT NOT NULL,
        cost_usd   REAL NOT NULL,
        runs       INTEGER NOT NULL,
        PRIMARY KEY (day, session_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX memory_spend_session ON memory_spend (session_id);
    `,
  },
];
