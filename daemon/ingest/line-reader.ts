/**
 * Splits a file's bytes, fed chunk by chunk, into lines with their byte offsets. A line inside one
 * chunk is handed out as a view of that chunk (no copy); only a line that spans chunks is copied,
 * into a buffer reused from line to line (fresh memory costs more to fault in than to copy). A
 * line longer than the limit is not kept at all: its bytes are counted and dropped until its
 * newline, so memory stays at one line plus one chunk.
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

/** Past this size the buffer is let go once its line is handled: one long line must not stay resident. */
const RETAINED_LINE_BYTES = 4 * 1024 * 1024;
const NO_BYTES = Buffer.alloc(0);

/** The bytes of a line that spans chunks; one per lane, reused by its passes. */
export class LineBuffer {
  bytes: Buffer = NO_BYTES;
}

export class LineSplitter {
  private pendingLength = 0;
  private oversize = false;
  private lineStart: number;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes: number,
    startOffset: number,
    pending?: PendingLine,
    private readonly buffer = new LineBuffer(),
  ) {
    this.lineStart = startOffset;
    if (pending === undefined) return;
    this.lineStart = pending.offset;
    this.pendingLength = pending.length;
    if (pending.bytes === null) this.oversize = true;
    else if (pending.length > 0) {
      this.reserve(pending.length, 0);
      pending.bytes.copy(this.buffer.bytes, 0, 0, pending.length);
    }
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
    // A copy: the buffer goes on to the lane's next pass.
    return {
      offset: this.lineStart,
      length: this.pendingLength,
      bytes: Buffer.from(this.buffer.bytes.subarray(0, this.pendingLength)),
    };
  }

  private complete(chunk: Buffer, from: number, newline: number): void {
    const length = this.pendingLength + (newline - from);
    const offset = this.lineStart;
    if (this.oversize || length > this.maxLineBytes) {
      this.sink.tooLong(offset, length);
    } else if (this.pendingLength === 0) {
      this.sink.line(chunk.subarray(from, newline), offset);
    } else {
      this.reserve(length, this.pendingLength);
      chunk.copy(this.buffer.bytes, this.pendingLength, from, newline);
      this.sink.line(this.buffer.bytes.subarray(0, length), offset);
    }
    if (this.buffer.bytes.length > RETAINED_LINE_BYTES) this.buffer.bytes = NO_BYTES;
    this.pendingLength = 0;
    this.oversize = false;
    this.lineStart = offset + length + 1;
  }

  private hold(rest: Buffer): void {
    const held = this.pendingLength;
    this.pendingLength += rest.length;
    if (this.oversize) return;
    if (this.pendingLength > this.maxLineBytes) {
      this.oversize = true;
      this.buffer.bytes = NO_BYTES;
      return;
    }
    // A copy: the caller reuses the chunk for its next read.
    this.reserve(this.pendingLength, held);
    rest.copy(this.buffer.bytes, held);
  }

  /** Room for `length` bytes, keeping the first `keep`; grows by doubling, never past the line limit. */
  private reserve(length: number, keep: number): void {
    const current = this.buffer.bytes;
    if (current.length >= length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(length, Math.min(current.length * 2, this.maxLineBytes)));
    current.copy(grown, 0, 0, keep);
    this.buffer.bytes = grown;
  }
}
