/**
 * Daemon configuration: environment over `config.json` over these defaults (DESIGN.md §5).
 * Pure: the caller reads the file and passes its parsed value.
 */
import type { Env } from './paths.js';

type Parser<T> = (raw: unknown) => T | undefined;

interface KeySpec<T> {
  env: string;
  default: T;
  parse: Parser<T>;
  doc: string;
}

const positiveInt: Parser<number> = (raw) => {
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
};
const nonNegativeInt: Parser<number> = (raw) => {
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
};
const nonNegativeNumber: Parser<number> = (raw) => {
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
};
const onOff: Parser<boolean> = (raw) => {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw !== 'string') return undefined;
  const word = raw.trim().toLowerCase();
  return ['1', 'true', 'on', 'yes'].includes(word)
    ? true
    : ['0', 'false', 'off', 'no'].includes(word)
      ? false
      : undefined;
};
const nonEmptyString: Parser<string> = (raw) => (typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined);
/** An absolute path, or '' (the feature is off). */
const absolutePathOrEmpty: Parser<string> = (raw) =>
  typeof raw !== 'string' ? undefined : raw.trim() === '' ? '' : raw.trim().startsWith('/') ? raw.trim() : undefined;
const choice =
  <T extends string>(...choices: T[]): Parser<T> =>
  (raw) =>
    typeof raw === 'string' && (choices as string[]).includes(raw) ? (raw as T) : undefined;

/** A shutdown takes well under a second; 10 s leaves room for the requests' grace (5 s) and a slow disk, under systemd's TimeoutStopSec (15 s). */
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 10_000;

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];

const spec = {
  logLevel: {
    env: 'MEMD_LOG_LEVEL',
    default: 'info' as LogLevel,
    parse: choice(...LOG_LEVELS),
    doc: 'debug, info, warn or error',
  },
  logMaxBytes: {
    env: 'MEMD_LOG_MAX_BYTES',
    default: 5 * 1024 * 1024,
    parse: positiveInt,
    doc: 'memd.log is rotated when it passes this size',
  },
  logFiles: {
    env: 'MEMD_LOG_FILES',
    default: 3,
    parse: positiveInt,
    doc: 'rotated logs kept (memd.log.1 ... memd.log.N)',
  },
  logFormat: {
    env: 'MEMD_LOG_FORMAT',
    default: 'auto' as LogFormatSetting,
    parse: choice(...LOG_FORMATS),
    doc: 'lines on stderr: auto (text on a terminal, JSON otherwise), json or text; memd.log is always JSON',
  },
  shutdownGraceMs: {
    env: 'MEMD_SHUTDOWN_GRACE_MS',
    default: 5_000,
    parse: nonNegativeInt,
    doc: 'how long a graceful shutdown lets running requests finish before cancelling them',
  },
  shutdownDeadlineMs: {
    env: 'MEMD_SHUTDOWN_DEADLINE_MS',
    default: DEFAULT_SHUTDOWN_DEADLINE_MS,
    parse: positiveInt,
    doc: 'the longest a shutdown may take; past it memd logs what was stuck, releases its lock and socket, and exits (killed, status 137)',
  },
  socketCheckMs: {
    env: 'MEMD_SOCKET_CHECK_MS',
    default: 5_000,
    parse: positiveInt,
    doc: 'how often the daemon checks that its socket file is still its own (it stops when it is gone)',
  },
  dbCheckMs: {
    env: 'MEMD_DB_CHECK_MS',
    default: 30_000,
    parse: positiveInt,
    doc: 'how often the daemon checks that its database file is still the one it opened (deleted or replaced: written back; overwritten: rebuilt)',
  },
  gitTimeoutMs: {
    env: 'MEMD_GIT_TIMEOUT_MS',
    default: 5_000,
    parse: positiveInt,
    doc: 'how long a handoff waits for git (all its commands together); then git is killed and the handoff says git did not answer',
  },
  maxConnections: {
    env: 'MEMD_MAX_CONNECTIONS',
    default: 1_024,
    parse: positiveInt,
    doc: 'client connections served at once; one more is answered TooManyConnections (-32004) and closed',
  },
  idleTimeoutMs: {
    env: 'MEMD_IDLE_TIMEOUT_MS',
    default: 600_000,
    parse: positiveInt,
    doc: 'a connection with no request, no subscription and no byte received for this long is closed (clients reconnect on their next call)',
  },
  frameTimeoutMs: {
    env: 'MEMD_FRAME_TIMEOUT_MS',
    default: 10_000,
    parse: positiveInt,
    doc: 'a frame begun must end with its newline within this, else -32700 and the connection is closed',
  },
  maxAnswerBytes: {
    env: 'MEMD_MAX_ANSWER_BYTES',
    default: 64 * 1024 * 1024,
    parse: positiveInt,
    doc: 'answer bytes of all connections together: written and not read yet by their clients, or reserved for heavy answers being built (16 MiB each); past it a heavy request is answered Busy (-32005)',
  },
  maxHeavyRequests: {
    env: 'MEMD_MAX_HEAVY_REQUESTS',
    default: 2,
    parse: positiveInt,
    doc: 'heavy requests (export pages, search.context, toolResults.get, compactions, archive restore/verify/prune, rewind) running at once; more wait their turn',
  },
  answerStallTimeoutMs: {
    env: 'MEMD_ANSWER_STALL_TIMEOUT_MS',
    default: 30_000,
    parse: positiveInt,
    doc: 'a connection whose client reads none of its queued answers for this long is closed, freeing its part of the answer budget',
  },
  summarizer: {
    env: 'MEMD_SUMMARIZER',
    default: 'offline' as 'offline' | 'anthropic',
    parse: choice('offline', 'anthropic'),
    doc: 'offline (deterministic, no API key) or anthropic',
  },
  microCompact: {
    env: 'MEMD_MICRO_COMPACT',
    default: 'savings' as 'savings' | 'time',
    parse: choice('savings', 'time'),
    doc: 'when micro-compaction clears old tool results: savings (at least 20,000 tokens) or time (after 60 minutes idle)',
  },
  backfillExtractions: {
    env: 'MEMD_BACKFILL_EXTRACTIONS',
    default: 50,
    parse: nonNegativeInt,
    doc: 'sessions the backfill may extract session memory for per daemon start, newest first (0: none; live changes still trigger extraction)',
  },
  ingestSweepMs: {
    env: 'MEMD_INGEST_SWEEP_MS',
    default: 30_000,
    parse: positiveInt,
    doc: 'how often the transcripts changed in the last hour are compared with the index (the whole projects dir every 10th time), the safety net for changes the watcher missed',
  },
  extractionDailyBudgetUsd: {
    env: 'MEMD_EXTRACTION_DAILY_BUDGET_USD',
    default: 1,
    parse: nonNegativeNumber,
    doc: "USD that memd's model calls (extractions, compaction summaries, handoff narratives) may spend a day (local time) with the anthropic summarizers; past it, background extraction waits for the next day (memory.extract, compactions and handoffs still run, and count)",
  },
  archiveEnabled: {
    env: 'MEMD_ARCHIVE',
    default: true,
    parse: onOff,
    doc: "keep a gzipped copy of every transcript, sub-agent transcript and persisted tool result in the state dir, past Claude Code's cleanup (on or off)",
  },
  archiveMaxBytes: {
    env: 'MEMD_ARCHIVE_MAX_BYTES',
    default: 20 * 1024 * 1024 * 1024,
    parse: positiveInt,
    doc: 'the archive stops growing at this size (daemon.status says so) until memctl archive prune makes room',
  },
  syncDir: {
    env: 'MEMD_SYNC_DIR',
    default: '',
    parse: absolutePathOrEmpty,
    doc: "a folder that a sync engine (rsync, Syncthing, rclone…) carries between the user's machines (absolute path; empty: off, nothing leaves this machine). memd writes its own subtree there and reads the others' (docs/sync.md)",
  },
  syncDeviceName: {
    env: 'MEMD_SYNC_DEVICE_NAME',
    default: '',
    parse: (raw) => (typeof raw === 'string' ? raw.trim() : undefined),
    doc: "this machine's name in other machines' listings (empty: the host name)",
  },
  syncScanMs: {
    env: 'MEMD_SYNC_SCAN_MS',
    default: 5_000,
    parse: positiveInt,
    doc: "how often the sync folder is looked at for what other machines wrote, and this machine's archive mirrored into it (ms)",
  },
  searchProcesses: {
    env: 'MEMD_SEARCH_PROCESSES',
    default: 2,
    parse: positiveInt,
    doc: 'processes answering search.query at once; one client connection holds at most one of them, so another client is served beside it',
  },
  searchDeadlineMs: {
    env: 'MEMD_SEARCH_DEADLINE_MS',
    default: 2_000,
    parse: positiveInt,
    doc: 'a search.query running longer is stopped (its process killed and replaced) and answered SearchTimeout (1010)',
  },
  recallPromptTokens: {
    env: 'MEMD_RECALL_PROMPT_TOKENS',
    default: 1_500,
    parse: nonNegativeInt,
    doc: "the most the UserPromptSubmit hook adds to a prompt's context from past sessions and the project's memory (estimated tokens); 0 turns prompt recall off",
  },
  recallFailure: {
    env: 'MEMD_RECALL_FAILURE',
    default: true,
    parse: onOff,
    doc: 'after a failed tool call, the PostToolUseFailure hook adds a short note when the same error was seen in another session, and what fixed it (on or off)',
  },
  recallMinCoverage: {
    env: 'MEMD_RECALL_MIN_COVERAGE',
    default: 0.6,
    parse: nonNegativeNumber,
    doc: "how much of a prompt's weight (its rarer words weigh more) a past passage must hold to be recalled, 0-1; an error line needs the larger of this and 0.7",
  },
  model: {
    env: 'MEMD_MODEL',
    default: 'claude-haiku-4-5',
    parse: nonEmptyString,
    doc: 'model for extraction and summaries',
  },
  handoffModel: {
    env: 'MEMD_HANDOFF_MODEL',
    default: 'claude-sonnet-4-6',
    parse: nonEmptyString,
    doc: 'model for handoffs',
  },
} satisfies Record<string, KeySpec<unknown>>;

type Spec = typeof spec;
export type ConfigKey = keyof Spec;
export type MemdConfig = { [K in ConfigKey]: Spec[K]['default'] };
export type ConfigSource = 'default' | 'file' | 'env';

export interface ResolvedConfig {
  config: MemdConfig;
  sources: Record<ConfigKey, ConfigSource>;
  /** Invalid or unknown settings, each naming the key and where it came from. */
  problems: string[];
}

export const CONFIG_KEYS = Object.keys(spec) as ConfigKey[];

export function describeConfigKeys(): { key: ConfigKey; env: string; default: unknown; doc: string }[] {
  return CONFIG_KEYS.map((key) => ({ key, env: spec[key].env, default: spec[key].default, doc: spec[key].doc }));
}

export function resolveConfig(env: Env, file: unknown): ResolvedConfig {
  const problems: string[] = [];
  let fileValues: Record<string, unknown> = {};
  if (file !== undefined) {
    if (typeof file === 'object' && file !== null && !Array.isArray(file)) {
      fileValues = file as Record<string, unknown>;
      for (const key of Object.keys(fileValues)) {
        if (!Object.hasOwn(spec, key)) problems.push(`config.json: unknown key "${key}"`);
      }
    } else {
      problems.push('config.json: must hold one JSON object');
    }
  }
  const config: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  for (const key of CONFIG_KEYS) {
    const keySpec: KeySpec<unknown> = spec[key];
    config[key] = keySpec.default;
    sources[key] = 'default';
    if (Object.hasOwn(fileValues, key)) {
      const parsed = keySpec.parse(fileValues[key]);
      if (parsed === undefined) problems.push(`config.json: "${key}" is invalid (${keySpec.doc})`);
      else {
        config[key] = parsed;
        sources[key] = 'file';
      }
    }
    const fromEnv = env[keySpec.env];
    if (fromEnv !== undefined && fromEnv !== '') {
      const parsed = keySpec.parse(fromEnv);
      if (parsed === undefined) problems.push(`${keySpec.env}="${fromEnv}" is invalid (${keySpec.doc})`);
      else {
        config[key] = parsed;
        sources[key] = 'env';
      }
    }
  }
  return { config: config as MemdConfig, sources: sources as Record<ConfigKey, ConfigSource>, problems };
}
