/**
 * A file's complete lines from the last to the first, read backwards in fixed-size chunks, so that
 * the newest lines of a large append-only log cost one chunk, not the whole file. Bytes after the
 * last newline are an appender's unfinished line and are never returned. Only the size seen at
 * open is read: lines appended later wait for the next reader.
 */
import type { FileHandle } from 'node:fs/promises';
import { openIfPresent } from '../../fs/read.js';

const NEWLINE = 0x0a;
/** Large enough that a page of prompts is usually one read, small enough to cost nothing when it is not. */
export const DEFAULT_CHUNK_BYTES = 64 * 1024;
/** A longer line is counted and dropped: memory stays at one line plus one chunk, whatever the file holds. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface TailLineOptions {
  chunkBytes?: number;
  maxLineBytes?: number;
}

export class TailLineReader {
  /** Bytes before this offset are still unread. */
  private position: number;
  /** Complete lines of the last chunk, oldest first, so the newest is popped first. */
  private lines: Buffer[] = [];
  /** The pieces (newest first) of the line that ends in read bytes and starts before `position`. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private carryTooLong = false;
  /** False until the file's last newline is found: bytes after it are the unfinished tail. */
  private tailPassed = false;
  private closed = false;
  /** Bytes read from the file so far. */
  bytesRead = 0;
  /** Lines over the limit that were dropped. */
  longLines = 0;

  private constructor(
    private readonly file: FileHandle,
    size: number,
    private readonly chunkBytes: number,
    private readonly maxLineBytes: number,
  ) {
    this.position = size;
  }

  /** Null when the file does not exist. */
  static async open(path: string, options: TailLineOptions = {}): Promise<TailLineReader | null> {
    const file = await openIfPresent(path);
    if (file === null) return null;
    try {
      const { size } = await file.stat();
      return new TailLineReader(
        file,
        size,
        options.chunkBytes ?? DEFAULT_CHUNK_BYTES,
        options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      );
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** True when the next line can be had without reading the file. */
  get hasBufferedLine(): boolean {
    return this.lines.length > 0 || (this.position === 0 && this.hasFirstLine());
  }

  /** True when every line has been returned. */
  get done(): boolean {
    return this.lines.length === 0 && this.position === 0 && !this.hasFirstLine();
  }

  /** The next older complete line (without its newline; valid until the reader is closed), or null at the start of the file. */
  async next(): Promise<Buffer | null> {
    // Each pass either returns or reads one chunk, and `position` only decreases.
    for (;;) {
      const line = this.lines.pop();
      if (line !== undefined) return line;
      if (this.position === 0) return this.takeFirstLine();
      await this.readChunk();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close();
  }

  /** The file's first line is the carry once the start is reached: nothing precedes it. */
  private hasFirstLine(): boolean {
    return this.tailPassed && (this.carryBytes > 0 || this.carryTooLong);
  }

  private takeFirstLine(): Buffer | null {
    if (!this.hasFirstLine()) return null;
    return this.completeCarry(Buffer.alloc(0)) ?? null;
  }

  private async readChunk(): Promise<void> {
    const start = Math.max(0, this.position - this.chunkBytes);
    const chunk = Buffer.allocUnsafe(this.position - start);
    if (!(await this.readFully(chunk, start))) {
      // The file was truncated under us: what was returned was read before and is whole, but
      // the carry no longer joins up with what the file now holds.
      this.position = 0;
      this.dropCarry();
      this.tailPassed = false;
      return;
    }
    this.position = start;
    const found: Buffer[] = [];
    let end = chunk.length;
    for (
      let newline = chunk.lastIndexOf(NEWLINE, end - 1);
      newline >= 0;
      newline = newline > 0 ? chunk.lastIndexOf(NEWLINE, newline - 1) : -1
    ) {
      const piece = chunk.subarray(newline + 1, end);
      end = newline;
      if (!this.tailPassed) {
        this.tailPassed = true;
        this.dropCarry();
        continue;
      }
      const line = this.completeCarry(piece);
      if (line !== undefined) found.push(line);
    }
    this.addToCarry(chunk.subarray(0, end));
    this.lines = found.reverse();
  }

  /** False when the file ended before the buffer was full. */
  private async readFully(buffer: Buffer, at: number): Promise<boolean> {
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await this.file.read(buffer, filled, buffer.length - filled, at + filled);
      if (bytesRead === 0) return false;
      filled += bytesRead;
      this.bytesRead += bytesRead;
    }
    return true;
  }

  private addToCarry(piece: Buffer): void {
    if (!this.tailPassed || this.carryTooLong || piece.length === 0) return;
    if (this.carryBytes + piece.length > this.maxLineBytes) {
      this.carryTooLong = true;
      this.carry = [];
      return;
    }
    this.carry.push(piece);
    this.carryBytes += piece.length;
  }

  /** The line that `piece` starts; undefined when it was over the limit (counted instead). */
  private completeCarry(piece: Buffer): Buffer | undefined {
    this.addToCarry(piece);
    const tooLong = this.carryTooLong;
    const line = this.carry.length === 1 ? this.carry[0] : Buffer.concat(this.carry.reverse());
    this.dropCarry();
    if (tooLong) {
      this.longLines++;
      return undefined;
    }
    return line ?? Buffer.alloc(0);
  }

  private dropCarry(): void {
    this.carry = [];
    this.carryBytes = 0;
    this.carryTooLong = false;
  }
}
