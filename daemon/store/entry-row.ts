/**
 * How an IndexedEntry is laid out in the `entries` table (migration 2), both ways. Writing binds
 * positional parameters in ENTRY_COLUMNS order: the ingest hot path builds no objects per row.
 */
import type {
  CompactBoundary,
  EntryTitle,
  IndexedEntry,
  TitleKind,
  ToolResult,
  ToolUse,
} from '../../shared/transcript/types.js';

export const ENTRY_COLUMNS = [
  'file_id',
  'offset',
  'length',
  'type',
  'subtype',
  'uuid',
  'parent_uuid',
  'logical_parent_uuid',
  'timestamp',
  'session_id',
  'chars',
  'est_tokens',
  'message_id',
  'request_id',
  'model',
  'usage_input',
  'usage_output',
  'usage_cache_creation',
  'usage_cache_read',
  'usage_cache_5m',
  'usage_cache_1h',
  'tool_uses',
  'tool_results',
  'is_sidechain',
  'is_meta',
  'is_compact_summary',
  'cwd',
  'git_branch',
  'title_kind',
  'title',
  'compact',
  'leaf_uuid',
] as const;

export type EntryParam = string | number | null;

export const SESSION_ID_COLUMN = ENTRY_COLUMNS.indexOf('session_id');
export const OFFSET_COLUMN = ENTRY_COLUMNS.indexOf('offset');

/** The first session id the rows carry (runs of whole rows in ENTRY_COLUMNS order), or null. */
export function firstSessionId(runs: readonly (readonly EntryParam[])[]): string | null {
  for (const run of runs) {
    for (let at = SESSION_ID_COLUMN; at < run.length; at += ENTRY_COLUMNS.length) {
      const value = run[at];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return null;
}

/**
 * Columns whose text repeats on nearly every line (migration 9): the writer stores an id into
 * `strings` in the id column and NULL in the text column; rows written before migration 9 hold
 * the text. Readers take whichever is set.
 */
export const STORED_ONCE = { cwd: 'cwd_id', git_branch: 'branch_id', model: 'model_id' } as const;

type StoredOnce = keyof typeof STORED_ONCE;

const isStoredOnce = (column: string): column is StoredOnce => Object.hasOwn(STORED_ONCE, column);

/** The positions in ENTRY_COLUMNS of the columns stored once. */
export const STORED_ONCE_AT: readonly number[] = ENTRY_COLUMNS.flatMap((column, at) =>
  isStoredOnce(column) ? [at] : [],
);

/** The columns an INSERT names, in ENTRY_COLUMNS order: the id column in place of each stored once. */
const STORAGE_COLUMNS = ENTRY_COLUMNS.map((column) => (isStoredOnce(column) ? STORED_ONCE[column] : column));

const ROW_PLACEHOLDERS = `(${ENTRY_COLUMNS.map(() => '?').join(', ')})`;

export const INSERT_ENTRY_SQL = `INSERT INTO entries (${STORAGE_COLUMNS.join(', ')}) VALUES ${ROW_PLACEHOLDERS}`;

const READ_COLUMNS = ENTRY_COLUMNS.map((column) =>
  isStoredOnce(column)
    ? `coalesce(e.${column}, (SELECT value FROM strings WHERE id = e.${STORED_ONCE[column]})) AS ${column}`
    : `e.${column}`,
).join(', ');

/**
 * A SELECT of whole entry rows as EntryRow, the table aliased `e`: `rest` is the WHERE and ORDER
 * BY, in which columns stored once must not be named (their text is in one of two places).
 */
export function selectEntries(rest: string): string {
  return `SELECT ${READ_COLUMNS} FROM entries e ${rest}`;
}

/**
 * Rows per multi-row INSERT: one statement step per row costs more than binding a row, so a
 * batch of rows per step cuts ingest's SQLite time; 16 × 32 parameters stays far under SQLite's
 * 32,766-parameter limit.
 */
export const ENTRY_INSERT_BATCH = 16;

export const INSERT_ENTRY_BATCH_SQL = `INSERT INTO entries (${STORAGE_COLUMNS.join(', ')}) VALUES ${Array.from({ length: ENTRY_INSERT_BATCH }, () => ROW_PLACEHOLDERS).join(', ')}`;

/** The row as SQLite returns it. */
export interface EntryRow {
  file_id: number;
  offset: number;
  length: number;
  type: string;
  subtype: string | null;
  uuid: string | null;
  parent_uuid: string | null;
  logical_parent_uuid: string | null;
  timestamp: string | null;
  session_id: string | null;
  chars: number;
  est_tokens: number;
  message_id: string | null;
  request_id: string | null;
  model: string | null;
  usage_input: number | null;
  usage_output: number | null;
  usage_cache_creation: number | null;
  usage_cache_read: number | null;
  usage_cache_5m: number | null;
  usage_cache_1h: number | null;
  tool_uses: string | null;
  tool_results: string | null;
  is_sidechain: number;
  is_meta: number;
  is_compact_summary: number;
  cwd: string | null;
  git_branch: string | null;
  title_kind: string | null;
  title: string | null;
  compact: string | null;
  leaf_uuid: string | null;
}

const bit = (value: boolean): number => (value ? 1 : 0);

/**
 * Token counts come from files other programs write; a STRICT INTEGER column refuses a fraction
 * or a huge float, and one such value must not fail the batch it is in.
 */
function int(value: number): number {
  if (Number.isSafeInteger(value)) return value;
  if (!Number.isFinite(value)) return 0;
  return Math.trunc(Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value)));
}

/** Appends one row's parameters, for the multi-row INSERT (no array per row on the hot path). */
export function pushEntryParams(params: EntryParam[], fileId: number, entry: IndexedEntry): void {
  const { usage, title, compact } = entry;
  params.push(
    fileId,
    entry.offset,
    entry.length,
    entry.type,
    entry.subtype,
    entry.uuid,
    entry.parentUuid,
    entry.logicalParentUuid,
    entry.timestamp,
    entry.sessionId,
    int(entry.chars),
    int(entry.estTokens),
    entry.messageId,
    entry.requestId,
    entry.model,
    usage === null ? null : int(usage.input),
    usage === null ? null : int(usage.output),
    usage === null ? null : int(usage.cacheCreation),
    usage === null ? null : int(usage.cacheRead),
    usage === null ? null : int(usage.cache5m),
    usage === null ? null : int(usage.cache1h),
    entry.toolUses.length === 0 ? null : JSON.stringify(entry.toolUses),
    entry.toolResults.length === 0 ? null : JSON.stringify(entry.toolResults),
    bit(entry.isSidechain),
    bit(entry.isMeta),
    bit(entry.isCompactSummary),
    entry.cwd,
    entry.gitBranch,
    title === null ? null : title.kind,
    title === null ? null : title.value,
    compact === null ? null : JSON.stringify(compact),
    title?.leafUuid ?? null,
  );
}

/** The JSON was written by pushEntryParams from parsed values, so it is trusted as such. */
function fromJson<T>(json: string | null, absent: T): T {
  return json === null ? absent : (JSON.parse(json) as T);
}

const TITLE_KINDS: ReadonlySet<string> = new Set<TitleKind>(['custom', 'ai', 'summary', 'prompt', 'command']);

function titleFromRow(row: EntryRow): EntryTitle | null {
  if (row.title_kind === null || row.title === null || !TITLE_KINDS.has(row.title_kind)) return null;
  const kind = row.title_kind as TitleKind;
  return row.leaf_uuid === null ? { kind, value: row.title } : { kind, value: row.title, leafUuid: row.leaf_uuid };
}

export function entryFromRow(row: EntryRow): IndexedEntry {
  const hasUsage = row.usage_input !== null;
  return {
    offset: row.offset,
    length: row.length,
    type: row.type,
    subtype: row.subtype,
    uuid: row.uuid,
    parentUuid: row.parent_uuid,
    logicalParentUuid: row.logical_parent_uuid,
    timestamp: row.timestamp,
    sessionId: row.session_id,
    chars: row.chars,
    estTokens: row.est_tokens,
    messageId: row.message_id,
    requestId: row.request_id,
    model: row.model,
    usage: hasUsage
      ? {
          input: row.usage_input ?? 0,
          output: row.usage_output ?? 0,
          cacheCreation: row.usage_cache_creation ?? 0,
          cacheRead: row.usage_cache_read ?? 0,
          cache5m: row.usage_cache_5m ?? 0,
          cache1h: row.usage_cache_1h ?? 0,
        }
      : null,
    toolUses: fromJson<ToolUse[]>(row.tool_uses, []),
    toolResults: fromJson<ToolResult[]>(row.tool_results, []),
    isSidechain: row.is_sidechain === 1,
    isMeta: row.is_meta === 1,
    isCompactSummary: row.is_compact_summary === 1,
    cwd: row.cwd,
    gitBranch: row.git_branch,
    title: titleFromRow(row),
    compact: fromJson<CompactBoundary | null>(row.compact, null),
  };
}

/**
 * The row at `at` of a run of parameters, as SQLite would return it. One object literal in column
 * order (checked against ENTRY_COLUMNS by the entry-row test): filling an object key by key from
 * the column names made it a dictionary, and cost ingest ~1 s per 2.4 GB.
 */
function rowAt(run: readonly EntryParam[], at: number): EntryRow {
  return {
    file_id: run[at] ?? null,
    offset: run[at + 1] ?? null,
    length: run[at + 2] ?? null,
    type: run[at + 3] ?? null,
    subtype: run[at + 4] ?? null,
    uuid: run[at + 5] ?? null,
    parent_uuid: run[at + 6] ?? null,
    logical_parent_uuid: run[at + 7] ?? null,
    timestamp: run[at + 8] ?? null,
    session_id: run[at + 9] ?? null,
    chars: run[at + 10] ?? null,
    est_tokens: run[at + 11] ?? null,
    message_id: run[at + 12] ?? null,
    request_id: run[at + 13] ?? null,
    model: run[at + 14] ?? null,
    usage_input: run[at + 15] ?? null,
    usage_output: run[at + 16] ?? null,
    usage_cache_creation: run[at + 17] ?? null,
    usage_cache_read: run[at + 18] ?? null,
    usage_cache_5m: run[at + 19] ?? null,
    usage_cache_1h: run[at + 20] ?? null,
    tool_uses: run[at + 21] ?? null,
    tool_results: run[at + 22] ?? null,
    is_sidechain: run[at + 23] ?? null,
    is_meta: run[at + 24] ?? null,
    is_compact_summary: run[at + 25] ?? null,
    cwd: run[at + 26] ?? null,
    git_branch: run[at + 27] ?? null,
    title_kind: run[at + 28] ?? null,
    title: run[at + 29] ?? null,
    compact: run[at + 30] ?? null,
    leaf_uuid: run[at + 31] ?? null,
  } as EntryRow;
}

/** The entries of rows in ENTRY_COLUMNS order (runs of whole rows), as entryFromRow reads them back. */
export function entriesFromParams(runs: readonly (readonly EntryParam[])[]): IndexedEntry[] {
  const entries: IndexedEntry[] = [];
  const width = ENTRY_COLUMNS.length;
  for (const run of runs) {
    for (let at = 0; at + width <= run.length; at += width) entries.push(entryFromRow(rowAt(run, at)));
  }
  return entries;
}
