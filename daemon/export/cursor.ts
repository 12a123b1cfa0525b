/**
 * An export's cursor: where the next page starts, and what the export is a snapshot of, so that
 * a page is never stitched to pages of another version of the session. Opaque to clients
 * (base64url JSON), checked field by field when it comes back.
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/protocol/export.js';
import { isRecord } from '../../shared/values.js';

const PREFIX = 'x1.';

export interface ExportCursor {
  sessionId: string;
  format: ExportFormat;
  /** Byte offset of the next page. */
  offset: number;
  /** The whole export's size: a transcript's size at the first page, or the report's. */
  totalBytes: number;
  /** jsonl: the source's identity; md/html: the state of the session's files the report was made from. */
  version: string;
  /** md/html: the rendered report kept for the next pages. */
  documentId: string | null;
}

export function encodeCursor(cursor: ExportCursor): string {
  return `${PREFIX}${Buffer.from(JSON.stringify(cursor)).toString('base64url')}`;
}

function badCursor(why: string): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    'BadCursor',
    `cursor is not one export.session gave for this session and format (${why})`,
    { field: 'params.cursor' },
  );
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The cursor, checked to belong to this session and format; BadCursor (-32602) otherwise. */
export function decodeCursor(text: string, sessionId: string, format: ExportFormat): ExportCursor {
  if (!text.startsWith(PREFIX)) throw badCursor('unknown form');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  if (!isRecord(value)) throw badCursor('not readable');
  const { offset, totalBytes, version, documentId } = value;
  if (
    !isCount(offset) ||
    !isCount(totalBytes) ||
    offset > totalBytes ||
    typeof version !== 'string' ||
    (documentId !== null && typeof documentId !== 'string')
  ) {
    throw badCursor('fields');
  }
  if (!(EXPORT_FORMATS as readonly unknown[]).includes(value.format)) throw badCursor('format');
  if (value.sessionId !== sessionId || value.format !== format)
    throw badCursor(`it is of ${String(value.sessionId)} as ${String(value.format)}`);
  return { sessionId, format, offset, totalBytes, version, documentId };
}
