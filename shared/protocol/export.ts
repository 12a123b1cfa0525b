/**
 * `export.session` (issue 18): a session as its raw transcript (`jsonl`), as markdown (`md`) or as a
 * self-contained HTML report (`html`), in pages: sessions run to 50-80 MB and every answer must
 * stay under the 16 MiB frame (DESIGN.md §3). Concatenating the pages' bytes gives the whole export.
 */

export const EXPORT_FORMATS = ['md', 'html', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * A page's content by default, and the most the daemon gives in one page whatever `maxBytes` asks
 * (issue 27): each page is decoded and escaped on the daemon's main thread, and 1 MiB of that stays
 * a few milliseconds, so other clients' calls never wait long behind an export. JSON's escaping of
 * it (six bytes at most a byte) stays far below the frame.
 */
export const EXPORT_PAGE_BYTES = 1024 * 1024;
/** The smallest page a caller may ask for: room for any UTF-8 character and a line or two. */
export const MIN_EXPORT_PAGE_BYTES = 1024;
/** The largest a caller may ask for (older clients ask for up to 8 MiB); pages are EXPORT_PAGE_BYTES at most. */
export const MAX_EXPORT_PAGE_BYTES = 8 * 1024 * 1024;

export interface ExportPage {
  /** The full id (a prefix in the params is resolved). */
  sessionId: string;
  format: ExportFormat;
  /**
   * `utf8`: `content` is the page's text. `base64`: its bytes, for a `jsonl` page that is not valid
   * UTF-8 (a transcript may hold a bad line), so that the export stays byte-identical.
   */
  encoding: 'utf8' | 'base64';
  content: string;
  /** Where this page starts in the whole export, and the export's size, both in bytes. */
  offset: number;
  totalBytes: number;
  /** Pass as `cursor` (with the same sessionId and format) for the next page; null on the last. */
  nextCursor: string | null;
}
