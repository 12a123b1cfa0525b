/**
 * The per-line hot path of ingest, with no I/O and no SQLite: a file's bytes, fed chunk by chunk,
 * become table rows (positional INSERT parameters) and bad lines. It runs in the parse worker, so
 * decoding and JSON.parse overlap the SQLite writes on the main thread; the tailer can also run it
 * inline. A half-written last line can be kept between passes so that the next pass does not read
 * its bytes again.
 */
import { isUtf8 } from 'node:buffer';
import { OwnCallBook } from '../../shared/search/own-traffic.js';
import { parseEntry } from '../../shared/transcript/parse.js';
import { type EntryParam, pushEntryParams } from '../store/entry-row.js';
import type { SearchParam } from '../store/search-row.js';
import { LineBuffer, type LineSink, LineSplitter, type PendingLine } from './line-reader.js';
import { parseLine } from './long-lines.js';
import { lineSearchTexts } from './search-line.js';
import type { BadLine, ParsedChunk } from './types.js';

export interface ParsePass {
  path: string;
  /** Committed offset the pass starts from. */
  start: number;
  fileId: number;
  /** Whether the lines' search texts are read too (writer.ts readsSearchTexts says when they are kept). */
  search: boolean;
  /** False: the search texts alone, no entry rows (the search index builder reads lines ingest has rows of). */
  rows?: boolean;
}

/**
 * `MEMD_SEARCH_INDEX=off` leaves the search index out (nothing extracted, nothing written): for
 * whoever wants no second copy of their prompts, and for the bench's cost of indexing. Read from
 * the environment because the parse worker starts before the configuration is read.
 */
export const SEARCH_INDEX_ON = process.env.MEMD_SEARCH_INDEX !== 'off';

/** Accumulates one chunk's results; the sink writes into whichever chunk is current. */
class ChunkRows implements LineSink {
  rows: EntryParam[] = [];
  count = 0;
  bad: BadLine[] = [];
  newest: string | null = null;
  search: SearchParam[] = [];

  constructor(
    private readonly fileId: number,
    private readonly path: string,
    private readonly ownCalls: OwnCallBook,
    private readonly searchTexts: boolean,
    private readonly entryRows: boolean,
  ) {}

  line(line: Buffer, offset: number): void {
    // A blank line carries nothing and is no error.
    if (line.length === 0) return;
    if (!this.entryRows) {
      this.textsOnly(line, offset);
      return;
    }
    // isUtf8 validates with SIMD, several times faster than a fatal TextDecoder on the hot path.
    if (!isUtf8(line)) {
      this.bad.push({ offset, length: line.length, reason: 'invalid-utf8' });
      return;
    }
    let entry;
    let value: unknown;
    try {
      value = parseLine(line);
      entry = parseEntry(value, offset, line.length);
    } catch {
      // JSON.parse failed, or a valid value was nested too deep to walk.
      this.bad.push({ offset, length: line.length, reason: 'invalid-json' });
      return;
    }
    if (entry === null) {
      this.bad.push({ offset, length: line.length, reason: 'not-an-object' });
      return;
    }
    if (entry.badTimestamp) this.bad.push({ offset, length: line.length, reason: 'bad-timestamp' });
    pushEntryParams(this.rows, this.fileId, entry);
    if (this.searchTexts)
      for (const { kind, text } of lineSearchTexts(line, value, (whole) => this.ownCalls.texts(this.path, whole)))
        this.search.push(offset, kind, text);
    this.count += 1;
    if (entry.timestamp !== null && (this.newest === null || entry.timestamp > this.newest))
      this.newest = entry.timestamp;
  }

  tooLong(offset: number, length: number): void {
    this.bad.push({ offset, length, reason: 'too-long' });
  }

  /**
   * The search texts alone (the search index builder): no entry row, no bad line. A line the
   * ingest found bad has no entry row, and the writer drops texts without one.
   */
  private textsOnly(line: Buffer, offset: number): void {
    if (!this.searchTexts || !isUtf8(line)) return;
    try {
      const value = parseLine(line);
      for (const { kind, text } of lineSearchTexts(line, value, (whole) => this.ownCalls.texts(this.path, whole)))
        this.search.push(offset, kind, text);
    } catch {
      // Not JSON, or nested too deep: the ingest recorded it as a bad line.
    }
  }
}

/** A sink that forwards to the chunk being parsed (the splitter keeps one sink for the pass). */
class CurrentSink implements LineSink {
  current: ChunkRows | null = null;

  line(line: Buffer, offset: number): void {
    this.current?.line(line, offset);
  }

  tooLong(offset: number, length: number): void {
    this.current?.tooLong(offset, length);
  }
}

/**
 * Parses passes over files, one per lane at a time (lanes let the caller keep several files in
 * flight). The partial last line of a pass can be kept for the next pass over the same file;
 * which ones to keep is the caller's decision (see CarryBook), so a caller on another thread
 * knows where each pass resumes without asking.
 */
export class ChunkParser {
  private readonly carries = new Map<string, PendingLine>();
  private readonly passes = new Map<number, { pass: ParsePass; splitter: LineSplitter }>();
  private readonly lineBuffers = new Map<number, LineBuffer>();
  private readonly sink = new CurrentSink();
  /** memd's calls per file, so that their results, on later lines and passes, are indexed as memd's (issue 28). */
  private readonly ownCalls = new OwnCallBook();

  constructor(private readonly maxLineBytes: number) {}

  /** Starts a pass over one file in `lane`, after the kept partial line if `resume` (else it is dropped). */
  begin(lane: number, pass: ParsePass, resume: boolean): void {
    this.passes.delete(lane);
    const carry = this.carries.get(pass.path);
    this.carries.delete(pass.path);
    if (resume && (carry === undefined || carry.offset !== pass.start))
      throw new Error(`no partial line kept for ${pass.path} at ${pass.start}`);
    let buffer = this.lineBuffers.get(lane);
    if (buffer === undefined) this.lineBuffers.set(lane, (buffer = new LineBuffer()));
    this.passes.set(lane, {
      pass,
      splitter: new LineSplitter(this.sink, this.maxLineBytes, pass.start, resume ? carry : undefined, buffer),
    });
  }

  /** Feeds the lane's pass its next bytes; `bytes` may be reused once this returns. */
  parse(lane: number, bytes: Buffer): ParsedChunk {
    const current = this.passes.get(lane);
    if (current === undefined) throw new Error(`parse outside a pass in lane ${lane}`);
    const chunk = new ChunkRows(
      current.pass.fileId,
      current.pass.path,
      this.ownCalls,
      SEARCH_INDEX_ON && current.pass.search,
      current.pass.rows !== false,
    );
    this.sink.current = chunk;
    try {
      current.splitter.push(bytes);
    } finally {
      this.sink.current = null;
    }
    return {
      rows: chunk.rows,
      count: chunk.count,
      bad: chunk.bad,
      completeOffset: current.splitter.completeOffset,
      newest: chunk.newest,
      search: chunk.search,
    };
  }

  /** Ends the lane's pass; `keep` holds its partial last line for the next pass over the same file. */
  end(lane: number, keep: boolean): void {
    const current = this.passes.get(lane);
    this.passes.delete(lane);
    if (!keep || current === undefined) return;
    const { pass, splitter } = current;
    if (splitter.nextOffset !== splitter.completeOffset) this.carries.set(pass.path, splitter.pending());
  }

  /** Forgets a file's kept partial line. */
  forget(path: string): void {
    this.carries.delete(path);
    this.ownCalls.forget(path);
  }
}

/** Where a kept partial line starts and how far it reaches. */
export interface CarryRecord {
  ino: string;
  offset: number;
  length: number;
  /** Bytes it holds (none once it is over the line limit: those are only counted). */
  bytes: number;
  /** Its first bytes as the file held them, to tell that the file still does when the next pass resumes it. */
  fingerprint?: Buffer;
}

/**
 * The caller's account of the partial lines a ChunkParser keeps: which to keep within the budget,
 * and where a pass resumes. It mirrors the parser's decisions exactly, so the two never disagree.
 */
export class CarryBook {
  private readonly carries = new Map<string, CarryRecord>();
  private carriedBytes = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly budgetBytes: number,
  ) {}

  /**
   * Whether the pass resumes a kept line, and the offset to read from. The record is used up.
   * `stillThere` re-reads the line's first bytes: a file truncated back to where the line began
   * and written again holds other bytes there, which the kept ones must not be joined to.
   */
  begin(
    path: string,
    ino: string,
    start: number,
    stillThere?: (offset: number, fingerprint: Buffer) => boolean,
  ): { resume: boolean; readFrom: number } {
    const carry = this.take(path);
    if (carry === undefined || carry.ino !== ino || carry.offset !== start) return { resume: false, readFrom: start };
    if (carry.fingerprint !== undefined && stillThere !== undefined && !stillThere(carry.offset, carry.fingerprint))
      return { resume: false, readFrom: start };
    return { resume: true, readFrom: carry.offset + carry.length };
  }

  /** Whether to keep the partial line from `completeOffset` to `nextOffset` (false if none or over budget). */
  end(path: string, ino: string, completeOffset: number, nextOffset: number, fingerprint?: Buffer): boolean {
    const length = nextOffset - completeOffset;
    if (length <= 0) return false;
    const bytes = length > this.maxLineBytes ? 0 : length;
    if (this.carriedBytes + bytes > this.budgetBytes) return false;
    this.carries.set(path, {
      ino,
      offset: completeOffset,
      length,
      bytes,
      ...(fingerprint === undefined ? {} : { fingerprint }),
    });
    this.carriedBytes += bytes;
    return true;
  }

  forget(path: string): void {
    this.take(path);
  }

  private take(path: string): CarryRecord | undefined {
    const carry = this.carries.get(path);
    if (carry === undefined) return undefined;
    this.carries.delete(path);
    this.carriedBytes -= carry.bytes;
    return carry;
  }
}
