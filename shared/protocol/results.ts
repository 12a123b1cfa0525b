/** Result types of the methods the daemon serves. */

/** Bumped on any incompatible change of the wire protocol. */
export const PROTOCOL_VERSION = 1;

export interface VersionInfo {
  name: 'memd';
  version: string;
  protocol: number;
  /** Method names this daemon serves, plus feature flags such as `events`. */
  capabilities: string[];
}

export interface OkResult {
  ok: true;
}

export interface SubscriptionResult {
  /** Every topic this connection is subscribed to after the call. */
  topics: string[];
}

export interface DaemonPaths {
  socket: string;
  stateDir: string;
  database: string;
  log: string | null;
  config: string;
  projectsDir: string;
}

export interface DatabaseStatus {
  schemaVersion: number;
  /** Set when the database failed its integrity check at start and was rebuilt. */
  recoveredFrom: { movedTo: string; reason: string; at: string } | null;
}

export interface DaemonStatus {
  pid: number;
  version: string;
  protocol: number;
  startedAt: string;
  uptimeMs: number;
  socketActivated: boolean;
  paths: DaemonPaths;
  counts: {
    connections: number;
    subscriptions: number;
    requestsServed: number;
    protocolErrors: number;
  };
  memory: { rssBytes: number; heapUsedBytes: number };
  database: DatabaseStatus;
}

export type ThresholdState = 'ok' | 'warning' | 'error' | 'autocompact' | 'blocking';

export interface ThresholdResult {
  model: string;
  tokens: number;
  state: ThresholdState;
  tokensLeft: number;
  [key: string]: unknown;
}

/** DESIGN.md §3: ready-to-send messages plus what was done. */
export interface CompactionResult {
  messages: unknown[];
  method: string;
  boundary: unknown;
  summary: string | null;
  preTokens: number;
  postTokens: number;
  keptFromUuid: string | null;
  [key: string]: unknown;
}
