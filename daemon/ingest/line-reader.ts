/**
 * Splits a file's bytes, fed chunk by chunk, into lines with their byte offsets. A line inside one
 * chunk is handed out as a view of that chunk (no copy); only a line that spans chunks is copied,
 * and joined once when its newline arrives. A line longer than the limit is not kept at all: its
 * bytes are counted and dropped until its newline, so memory stays at one line plus one chunk.
 */

const NEWLINE = 0x0a;

export interface LineSink {
  /** A complete line without its newline. `line` is only valid during the call. */
  line(line: Buffer, offset: number): void;
  /** A complete line over the limit; its bytes were not kept. */
  tooLong(offset: number, length: number): void;
}

/** An incomplete last line, carried from one read of the file to the next. */
export interface PendingLine {
  /** File offset of the line's first byte (the end of the last complete line). */
  offset: number;
  /** Bytes seen so far. */
  length: number;
  /** The bytes seen so far, or null when the line is already over the limit. */
  bytes: Buffer | null;
}

export class LineSplitter {
  private parts: Buffer[] = [];
  private pendingLength = 0;
  private oversize = false;
  private lineStart: number;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes: number,
    startOffset: number,
    pending?: PendingLine,
  ) {
    this.lineStart = startOffset;
    if (pending === undefined) return;
    this.lineStart = pending.offset;
    this.pendingLength = pending.length;
    if (pending.bytes === null) this.oversize = true;
    else if (pending.length > 0) this.parts.push(pending.bytes);
  }

  /** File offset just past the last complete line: where a later read must start over. */
  get completeOffset(): number {
    return this.lineStart;
  }

  /** File offset of the next byte to feed. */
  get nextOffset(): number {
    return this.lineStart + this.pendingLength;
  }

  /** Feeds the next bytes of the file. The caller may reuse `chunk` once this returns. */
  push(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      if (newline === -1) {
        this.hold(chunk.subarray(from));
        return;
      }
      this.complete(chunk, from, newline);
      from = newline + 1;
    }
  }

  /** The incomplete last line, to resume from without reading its bytes again. */
  pending(): PendingLine {
    if (this.oversize) return { offset: this.lineStart, length: this.pendingLength, bytes: null };
    const bytes = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.pendingLength);
    return { offset: this.lineStart, length: this.pendingLength, bytes };
  }

  private complete(chunk: Buffer, from: number, newline: number): void {
    const length = this.pendingLength + (newline - from);
    const offset = this.lineStart;
    if (this.oversize || length > this.maxLineBytes) {
      this.sink.tooLong(offset, length);
    } else if (this.pendingLength === 0) {
      this.sink.line(chunk.subarray(from, newline), offset);
    } else {
      this.parts.push(chunk.subarray(from, newline));
      const line = Buffer.concat(this.parts, length);
      // Released before the line is handled, so the parts and the joined line are not both kept.
      this.parts = [];
      this.sink.line(line, offset);
    }
    this.parts = [];
    this.pendingLength = 0;
    this.oversize = false;
    this.lineStart = offset + length + 1;
  }

  private hold(rest: Buffer): void {
    this.pendingLength += rest.length;
    if (this.oversize) return;
    if (this.pendingLength > this.maxLineBytes) {
      this.oversize = true;
      this.parts = [];
      return;
    }
    // A copy: the caller reuses the chunk for its next read.
    this.parts.push(Buffer.from(rest));
  }
}
