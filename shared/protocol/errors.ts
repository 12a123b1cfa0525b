/** JSON-RPC error codes of DESIGN.md §3, in one namespace. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  // Daemon state: -32000..-32099.
  ShuttingDown: -32001,
  NotReady: -32002,
  VersionMismatch: -32003,
  /** Every connection slot is taken (`TooManyConnections`); the connections open are served on. */
  TooManyConnections: -32004,
  /**
   * A heavy request (an export page, search.context, a compaction, an archive restore) was not run:
   * answers other clients have not read fill memd's budget, or this connection has too many
   * waiting (`data.retryAfterMs`, `data.method`). Retry after the hint; cheap requests still answer.
   */
  Busy: -32005,
  Cancelled: -32800,
  // Domain errors start at 1000.
  NotFound: 1001,
  Conflict: 1002,
  Locked: 1003,
  PathRejected: 1004,
  LlmUnavailable: 1005,
  JobFailed: 1006,
  InvalidTranscript: 1007,
  /** The file system said no (permissions, a full disk, a directory where a file should be): `data.path`, `data.cause`. */
  IoError: 1008,
  /** The answer would not fit in one frame (`AnswerTooLarge`, `data.bytes`, `data.limit`): ask for a page. */
  TooLarge: 1009,
  /** A query ran past its deadline and was stopped (`SearchTimeout`, `data.deadlineMs`; an addition, issue 27). */
  TimedOut: 1010,
} as const;

/**
 * Claude Code's answer to a `/compact` with nothing to compact; memd's `NothingToCompact`
 * (Conflict, 1002) starts with it: a conversation with no message to send, or one a summary would
 * not make smaller (`data: {method, messages, messageTokens, summaryTokens?, preTokens, postTokens?}`).
 */
export const NOT_ENOUGH_MESSAGES = 'Not enough messages to compact.';

/**
 * `compact.auto`'s `BelowThreshold` (Conflict, 1002) data: the session's context and where Claude
 * Code compacts it (ThresholdResult). `window` and `autoCompactMode` are additions (issue 28): in
 * reactive mode `autoCompactAt` is the window, where the API refuses and Claude Code compacts.
 */
export interface BelowThresholdData {
  tokens: number;
  autoCompactAt: number;
  window: number;
  autoCompactMode: 'threshold' | 'reactive';
}

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/** `error.data` on the wire: `kind` names the case; no stack traces ever. */
export interface RpcErrorData {
  kind: string;
  [key: string]: unknown;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: RpcErrorData;
}

const NAME_BY_CODE = new Map<number, ErrorCodeName>(
  (Object.entries(ErrorCode) as [ErrorCodeName, number][]).map(([name, code]) => [code, name]),
);

export function errorCodeName(code: number): ErrorCodeName | undefined {
  return NAME_BY_CODE.get(code);
}

/** A typed protocol error, thrown by handlers and raised by the client for error responses. */
export class RpcError extends Error {
  readonly code: number;
  readonly kind: string;
  readonly data: RpcErrorData;

  constructor(code: number, kind: string, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.kind = kind;
    this.data = { ...data, kind };
  }

  toJSON(): RpcErrorObject {
    return { code: this.code, message: this.message, data: this.data };
  }

  static fromObject(value: RpcErrorObject): RpcError {
    const data = value.data ?? { kind: errorCodeName(value.code) ?? 'Unknown' };
    const { kind, ...rest } = data;
    return new RpcError(value.code, typeof kind === 'string' ? kind : 'Unknown', value.message, rest);
  }
}

export function invalidParams(message: string, data: Record<string, unknown> = {}): RpcError {
  return new RpcError(ErrorCode.InvalidParams, 'InvalidParams', message, data);
}
