/**
 * `export.session`: a session's transcript (`jsonl`), markdown (`md`) or HTML report (`html`),
 * a page at a time. Pages end on UTF-8 character boundaries and the pages' bytes, joined, are the
 * export. A `jsonl` export is the main transcript's bytes up to its size at the first page; a
 * report is rendered once and kept for its next pages (re-rendered after a restart if the session
 * is unchanged; else the export must start again).
 */

import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { renderHtml } from '../../shared/export/html.js';
import { renderMarkdown } from '../../shared/export/markdown.js';
import { utf8PageEnd } from '../../shared/export/pages.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { EXPORT_PAGE_BYTES, type ExportFormat, type ExportPage } from '../../shared/protocol/export.js';
import { MAX_FRAME_BYTES } from '../../shared/protocol/framing.js';
import type { Logger } from '../log/logger.js';
import { decodeCursor, type ExportCursor, encodeCursor } from './cursor.js';
import { redactReport } from './redact.js';
import { buildReport, nextTurn, type ReportDeps } from './report.js';
import type { OpenTranscript } from './source.js';

/** A page's JSON string at most: the frame less room for the envelope and the other fields. */
const MAX_ESCAPED_PAGE_BYTES = MAX_FRAME_BYTES - 64 * 1024;
/** JSON's escaping of one byte at most: a control character becomes `\u00XX`. */
const MAX_ESCAPE_GROWTH = 6;
/** The bytes past a page's end read to see whether a character runs across it. */
const PEEK_BYTES = 3;
/** Reports kept for their next pages; an abandoned export lets go of its report after the TTL. */
const MAX_KEPT_REPORTS = 4;
const KEPT_REPORT_TTL_MS = 10 * 60_000;
/** Ends the version of a report made with `redact: false`. */
const UNREDACTED_VERSION = ';unredacted';

export interface ExportParams {
  sessionId: string;
  format: ExportFormat;
  cursor?: string;
  maxBytes?: number;
  /** md/html: secrets redacted (issue 27) unless false. jsonl is the transcript's bytes, never changed. */
  redact?: boolean;
}

export interface ExportService {
  page(params: ExportParams, signal: AbortSignal): Promise<ExportPage>;
  /** Lets go of the reports kept for their next pages. */
  close(): void;
}

export interface ExportDeps extends ReportDeps {
  openTranscript: OpenTranscript;
  log: Logger;
}

interface KeptReport {
  bytes: Buffer;
  timer: NodeJS.Timeout;
}

/**
 * The page of `bytes` (the export from the page's start on, with a few bytes more): at most
 * `maxBytes`, ending on a character boundary, as UTF-8 text when it is valid UTF-8, else base64.
 * A page whose escaped JSON would not fit the frame (control characters escape to 6 bytes each) is halved.
 */
export function cutPage(
  bytes: Buffer,
  maxBytes: number,
): { length: number; encoding: ExportPage['encoding']; content: string } {
  let limit = maxBytes;
  for (;;) {
    const length = utf8PageEnd(bytes, 0, limit);
    const page = bytes.subarray(0, length);
    if (!isUtf8(page)) return { length, encoding: 'base64', content: page.toString('base64') };
    const content = page.toString('utf8');
    // Escaping makes at most six bytes of one (a control character): small pages always fit, unmeasured.
    if (length * MAX_ESCAPE_GROWTH <= MAX_ESCAPED_PAGE_BYTES || limit <= 1024)
      return { length, encoding: 'utf8', content };
    if (Buffer.byteLength(JSON.stringify(content)) <= MAX_ESCAPED_PAGE_BYTES)
      return { length, encoding: 'utf8', content };
    limit = Math.floor(limit / 2);
  }
}

function changed(sessionId: string, what: string): RpcError {
  return new RpcError(
    ErrorCode.Conflict,
    'ExportChanged',
    `session ${sessionId} changed since its export began (${what}); export it again from the first page`,
    { sessionId },
  );
}

export function createExportService(deps: ExportDeps): ExportService {
  const kept = new Map<string, KeptReport>();

  const forget = (id: string): void => {
    const report = kept.get(id);
    if (report === undefined) return;
    clearTimeout(report.timer);
    kept.delete(id);
  };
  const keep = (id: string, bytes: Buffer): void => {
    forget(id);
    const timer = setTimeout(() => forget(id), KEPT_REPORT_TTL_MS);
    timer.unref();
    kept.set(id, { bytes, timer });
    for (const oldest of kept.keys()) {
      if (kept.size <= MAX_KEPT_REPORTS) break;
      forget(oldest);
    }
  };

  /** What a report is made from: the session's files as indexed. The same state renders the same report. */
  const stateOf = (sessionId: string): string =>
    deps.transcripts
      .files(sessionId)
      .map((file) => `${file.id}:${file.generation}:${file.committedOffset}`)
      .join(',');
  /** The report's version: its files' state, and whether it is redacted, so that no page of one is stitched to the other. */
  const versionOf = (sessionId: string, redact: boolean): string =>
    `${stateOf(sessionId)}${redact ? '' : UNREDACTED_VERSION}`;

  const render = async (
    sessionId: string,
    format: ExportFormat,
    redact: boolean,
    signal: AbortSignal,
  ): Promise<Buffer> => {
    const source = await deps.openTranscript(sessionId);
    try {
      const built = await buildReport(deps, source, sessionId, signal);
      const model = redact ? await redactReport(built, signal) : built;
      await nextTurn(signal);
      return Buffer.from(format === 'html' ? renderHtml(model) : renderMarkdown(model));
    } finally {
      await source.close();
    }
  };

  const toPage = (cursor: ExportCursor, window: Buffer, maxBytes: number): ExportPage => {
    const { length, encoding, content } = cutPage(window, maxBytes);
    const end = cursor.offset + length;
    const nextCursor = end >= cursor.totalBytes ? null : encodeCursor({ ...cursor, offset: end });
    return {
      sessionId: cursor.sessionId,
      format: cursor.format,
      encoding,
      content,
      offset: cursor.offset,
      totalBytes: cursor.totalBytes,
      nextCursor,
    };
  };

  const transcriptPage = async (params: ExportParams, maxBytes: number): Promise<ExportPage> => {
    const source = await deps.openTranscript(params.sessionId);
    try {
      let cursor: ExportCursor;
      if (params.cursor === undefined) {
        cursor = {
          sessionId: params.sessionId,
          format: 'jsonl',
          offset: 0,
          totalBytes: source.size,
          version: source.identity,
          documentId: null,
        };
      } else {
        cursor = decodeCursor(params.cursor, params.sessionId, 'jsonl');
        if (cursor.version !== source.identity) throw changed(params.sessionId, 'its transcript was replaced');
        if (source.size < cursor.totalBytes) throw changed(params.sessionId, 'its transcript was truncated');
      }
      const want = Math.min(maxBytes + PEEK_BYTES, cursor.totalBytes - cursor.offset);
      const window = await source.read(cursor.offset, want);
      if (window.length < want) throw changed(params.sessionId, 'its transcript was truncated');
      return toPage(cursor, window, maxBytes);
    } finally {
      await source.close();
    }
  };

  const reportPage = async (params: ExportParams, maxBytes: number, signal: AbortSignal): Promise<ExportPage> => {
    const { sessionId, format } = params;
    const redact = params.redact !== false;
    if (params.cursor === undefined) {
      const version = versionOf(sessionId, redact);
      const bytes = await render(sessionId, format, redact, signal);
      const documentId = bytes.length > maxBytes ? randomUUID() : null;
      if (documentId !== null) keep(documentId, bytes);
      return toPage(
        { sessionId, format, offset: 0, totalBytes: bytes.length, version, documentId },
        bytes.subarray(0, maxBytes + PEEK_BYTES),
        maxBytes,
      );
    }
    const cursor = decodeCursor(params.cursor, sessionId, format);
    if (cursor.version.endsWith(UNREDACTED_VERSION) === redact) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'BadCursor',
        `cursor is of ${redact ? 'an unredacted' : 'a redacted'} export; ask for the next page with the same redact`,
        {
          field: 'params.redact',
        },
      );
    }
    const documentId = cursor.documentId ?? randomUUID();
    let bytes = kept.get(documentId)?.bytes;
    if (bytes === undefined) {
      // Kept no longer (a restart, or too many exports at once): the same state renders the same bytes.
      if (versionOf(sessionId, redact) !== cursor.version) throw changed(sessionId, 'new lines were read since');
      bytes = await render(sessionId, format, redact, signal);
      if (bytes.length !== cursor.totalBytes) throw changed(sessionId, 'its report came out different');
      deps.log.info('export report rendered again for a later page', { sessionId, format });
    }
    keep(documentId, bytes);
    const page = toPage(cursor, bytes.subarray(cursor.offset, cursor.offset + maxBytes + PEEK_BYTES), maxBytes);
    if (page.nextCursor === null) forget(documentId);
    return page;
  };

  return {
    page(params, signal) {
      // A ceiling: more than EXPORT_PAGE_BYTES a page would hold the event loop for tens of ms (issue 27).
      const maxBytes = Math.min(params.maxBytes ?? EXPORT_PAGE_BYTES, EXPORT_PAGE_BYTES);
      return params.format === 'jsonl' ? transcriptPage(params, maxBytes) : reportPage(params, maxBytes, signal);
    },
    close() {
      for (const id of [...kept.keys()]) forget(id);
    },
  };
}
