/**
 * NDJSON framing: splits a byte stream into lines and refuses to buffer a frame past its cap,
 * so a peer that never sends a newline cannot grow our memory.
 */

/** DESIGN.md §3: a frame over this many bytes is a parse error and closes the connection. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

export type FrameResult = { lines: string[]; overflow: boolean };

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {}

  /** Lines completed by this chunk; `overflow` once the unfinished frame passes the cap. */
  push(chunk: Buffer): FrameResult {
    const lines: string[] = [];
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const lineBytes = this.pendingBytes + (newline - start);
      if (lineBytes > this.maxFrameBytes) return { lines, overflow: true };
      let line: Buffer = chunk.subarray(start, newline);
      if (this.pendingBytes > 0) {
        this.pending.push(line);
        line = Buffer.concat(this.pending, lineBytes);
        this.pending = [];
        this.pendingBytes = 0;
      }
      if (line.length > 0) lines.push(line.toString('utf8'));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.maxFrameBytes) {
        this.pending = [];
        return { lines, overflow: true };
      }
      this.pending.push(rest);
    }
    return { lines, overflow: false };
  }

  get bufferedBytes(): number {
    return this.pendingBytes;
  }
}
