/**
 * Where a search is in its walk over the index (issue 28, item 6): the matches are taken in
 * batches of rowids (query.ts): first the two ends of the index (or of a session's or project's
 * part of it), then the rest between them, newest rowid first. A batch is ranked on its own and
 * paged; the cursor says which batch, how far into its ranked candidates, and what is left, so
 * that following cursors walks every match once, whatever cap or time budget ended a page.
 */
import { invalidParams } from '../../shared/protocol/errors.js';

/** Rowids of the index, both ends included. */
export type Span = readonly [number, number];

export interface WalkPosition {
  /** The batch being paged: one span, or the two ends; null for the first batch, not yet taken. */
  batch: readonly Span[] | null;
  /** The batch's candidates, in rank order, already looked at. */
  offset: number;
  /** Rowids not yet in a batch, walked from their high end; null when the batch is the last. */
  rest: Span | null;
  /**
   * The time the walk's first page was asked at (ms): every page ranks by recency and reads
   * `since: 7d` from it, so that a batch is ranked alike on each page (no repeat, no gap).
   */
  now: number | null;
}

export const START: WalkPosition = { batch: null, offset: 0, rest: null, now: null };

/** An offset past this is not one memd gave (a batch holds a few thousand candidates). */
const MAX_OFFSET = 9_999_999;
const NUMBER = '(\\d{1,16})';
const SPAN = `${NUMBER}-${NUMBER}`;
const CURSOR = new RegExp(`^w${NUMBER}:${SPAN}(?:,${SPAN})?:(?:${SPAN})?:${NUMBER}$`);
/** memd's cursors before the walk: an offset into the first batch. */
const OFFSET_CURSOR = /^o(\d{1,7})$/;

export function encodeCursor(position: WalkPosition): string {
  const spans = (position.batch ?? []).map(([low, high]) => `${low}-${high}`).join(',');
  const rest = position.rest === null ? '' : `${position.rest[0]}-${position.rest[1]}`;
  return position.batch === null ? `o${position.offset}` : `w${position.offset}:${spans}:${rest}:${position.now ?? 0}`;
}

function badCursor(): Error {
  return invalidParams('cursor is not one this daemon gave', { kind: 'BadCursor' });
}

function span(low: string | undefined, high: string | undefined): Span {
  const from = Number(low);
  const to = Number(high);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from > to) throw badCursor();
  return [from, to];
}

/** The position a cursor names: InvalidParams (BadCursor) for any other text. */
export function decodeCursor(cursor: string | undefined): WalkPosition {
  if (cursor === undefined) return START;
  const old = OFFSET_CURSOR.exec(cursor);
  if (old !== null) return { batch: null, offset: Number(old[1]), rest: null, now: null };
  const match = CURSOR.exec(cursor);
  if (match === null) throw badCursor();
  const offset = Number(match[1]);
  if (offset > MAX_OFFSET) throw badCursor();
  const batch = [span(match[2], match[3])];
  if (match[4] !== undefined) batch.push(span(match[4], match[5]));
  const rest = match[6] === undefined ? null : span(match[6], match[7]);
  return { batch, offset, rest, now: Number(match[8]) };
}
