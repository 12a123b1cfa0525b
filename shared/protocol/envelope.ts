/** JSON-RPC 2.0 envelopes: the shape checks both ends apply before trusting a parsed line. */

import { isRecord } from '../values.js';
import { ErrorCode, type RpcErrorObject } from './errors.js';

/** Batches are legal JSON-RPC, but one line must not queue unbounded work. */
export const MAX_BATCH_SIZE = 100;
/** Nothing memd exchanges nests deeper than this; deeper input is an attack or a bug. */
export const MAX_JSON_DEPTH = 64;

export type RequestId = string | number | null;

export interface RequestEnvelope {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
  /** Absent for notifications. */
  id?: RequestId;
}

export interface SuccessEnvelope {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}

export interface ErrorEnvelope {
  jsonrpc: '2.0';
  id: RequestId;
  error: RpcErrorObject;
}

export type ResponseEnvelope = SuccessEnvelope | ErrorEnvelope;

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || value === null;
}

/** True when `value` nests containers deeper than `maxDepth`; iterative so it cannot overflow the stack. */
export function exceedsDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

export function errorEnvelope(id: RequestId, code: number, kind: string, message: string): ErrorEnvelope {
  return { jsonrpc: '2.0', id, error: { code, message, data: { kind } } };
}

export type EnvelopeCheck = { ok: true; request: RequestEnvelope } | { ok: false; response: ErrorEnvelope | null };

/** Validates one request object; an invalid notification gets no response (JSON-RPC 2.0 §5). */
export function checkRequest(value: unknown): EnvelopeCheck {
  if (!isRecord(value)) {
    return {
      ok: false,
      response: errorEnvelope(null, ErrorCode.InvalidRequest, 'InvalidRequest', 'a request must be a JSON object'),
    };
  }
  const id = value.id;
  if (id !== undefined && !isRequestId(id)) {
    return {
      ok: false,
      response: errorEnvelope(
        null,
        ErrorCode.InvalidRequest,
        'InvalidRequest',
        'id must be a string, a number or null',
      ),
    };
  }
  const replyId = id ?? null;
  if (value.jsonrpc !== '2.0') {
    return {
      ok: false,
      response: errorEnvelope(replyId, ErrorCode.InvalidRequest, 'InvalidRequest', 'jsonrpc must be "2.0"'),
    };
  }
  if (typeof value.method !== 'string' || value.method.length === 0) {
    return {
      ok: false,
      response: errorEnvelope(replyId, ErrorCode.InvalidRequest, 'InvalidRequest', 'method must be a non-empty string'),
    };
  }
  if ('result' in value || 'error' in value) {
    return {
      ok: false,
      response: errorEnvelope(
        replyId,
        ErrorCode.InvalidRequest,
        'InvalidRequest',
        'a request carries no result or error',
      ),
    };
  }
  const params = value.params;
  if (params !== undefined && !isRecord(params)) {
    const response = errorEnvelope(
      replyId,
      ErrorCode.InvalidParams,
      'InvalidParams',
      'params must be one object (DESIGN.md §3: no positional params)',
    );
    return { ok: false, response: id === undefined ? null : response };
  }
  const request: RequestEnvelope = { jsonrpc: '2.0', method: value.method };
  if (params !== undefined) request.params = params;
  if (id !== undefined) request.id = id;
  return { ok: true, request };
}
