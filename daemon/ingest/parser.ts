/**
 * Where the tailer's bytes are parsed: in a worker thread (the daemon's default), so decoding and
 * JSON.parse run beside the main thread's SQLite writes and RPC, or inline (tests, and callers that
 * want no thread). Both share the same read buffers ("slots"): the tailer reads a chunk into a free
 * slot and hands it over; the slot is its own again once `parse` settles. Only `parse` waits for an
 * answer: the main thread keeps the book of kept partial lines, so starting and ending a pass
 * costs no round trip.
 */
import { createWorkerClient, type WorkerReply } from '../workers/client.js';
import { workerScript } from '../workers/script.js';
import { CarryBook, ChunkParser, type ParsePass } from './chunk-parser.js';
import type { ParsedChunk } from './types.js';

/** Chunks in flight per lane: enough read-ahead that parsing never waits for a read. */
export const SLOTS_PER_LANE = 4;

export interface LineParser {
  readonly lanes: number;
  readonly slotBytes: number;
  /** The lane's read buffers; a slot handed to `parse` must not be touched until that settles. */
  slots(lane: number): readonly Buffer[];
  /**
   * Starts a pass over one file in `lane`; returns the offset to read from (past a kept partial
   * line, when `stillThere` confirms the file still holds it).
   */
  begin(
    lane: number,
    pass: ParsePass & { ino: string; stillThere?: (offset: number, fingerprint: Buffer) => boolean },
  ): number;
  /** Parses `length` bytes of the slot from `at` (0 unless several small files share the slot). */
  parse(lane: number, slot: number, length: number, at?: number): Promise<ParsedChunk>;
  /**
   * Ends the lane's pass, which parsed up to `nextOffset` and completed lines up to
   * `completeOffset`; `keep` holds the partial line between them for the next pass, within the
   * budget; `fingerprint` is its first bytes, checked when the next pass resumes it.
   */
  end(lane: number, completeOffset: number, nextOffset: number, keep: boolean, fingerprint?: Buffer): void;
  /** Drops a deleted file's kept partial line. */
  forget(path: string): void;
  close(): Promise<void>;
}

export interface ParserOptions {
  lanes: number;
  slotBytes: number;
  maxLineBytes: number;
  /** Partial last lines kept between passes, over all files; beyond this they are read again. */
  carryBudgetBytes: number;
}

/** What the worker is told at start (workerData). */
export interface ParseWorkerData {
  memory: SharedArrayBuffer;
  lanes: number;
  slotBytes: number;
  maxLineBytes: number;
}

export type ParseOp =
  | { op: 'begin'; lane: number; pass: ParsePass; resume: boolean }
  | { op: 'parse'; id: number; lane: number; slot: number; length: number; at: number }
  | { op: 'end'; lane: number; keep: boolean }
  | { op: 'forget'; path: string };

export type ParseReply = WorkerReply<{ value: ParsedChunk }>;

/** Every lane's slots over one memory: lane L's slot S is at index L * SLOTS_PER_LANE + S. */
export function slotViews(memory: SharedArrayBuffer | ArrayBuffer, lanes: number, slotBytes: number): Buffer[][] {
  return Array.from({ length: lanes }, (_, lane) =>
    Array.from({ length: SLOTS_PER_LANE }, (_, slot) =>
      Buffer.from(memory, (lane * SLOTS_PER_LANE + slot) * slotBytes, slotBytes),
    ),
  );
}

/** Runs one ParseOp against a ChunkParser; both the worker and the inline parser go through it. */
export function applyOp(
  parser: ChunkParser,
  slots: readonly (readonly Buffer[])[],
  op: ParseOp,
): ParsedChunk | undefined {
  switch (op.op) {
    case 'begin':
      parser.begin(op.lane, op.pass, op.resume);
      return undefined;
    case 'parse': {
      const slot = slots[op.lane]?.[op.slot];
      if (slot === undefined) throw new Error(`no slot ${op.slot} in lane ${op.lane}`);
      return parser.parse(op.lane, slot.subarray(op.at, op.at + op.length));
    }
    case 'end':
      parser.end(op.lane, op.keep);
      return undefined;
    case 'forget':
      parser.forget(op.path);
      return undefined;
  }
}

/** The LineParser around a way of sending ops: one-way ops are sent, `parse` is answered. */
function withBook(
  options: ParserOptions,
  slots: readonly (readonly Buffer[])[],
  send: (op: ParseOp) => void,
  parse: (lane: number, slot: number, length: number, at?: number) => Promise<ParsedChunk>,
  close: () => Promise<void>,
): LineParser {
  const book = new CarryBook(options.maxLineBytes, options.carryBudgetBytes);
  const current = new Map<number, { path: string; ino: string }>();
  return {
    lanes: options.lanes,
    slotBytes: options.slotBytes,
    slots(lane) {
      const own = slots[lane];
      if (own === undefined) throw new Error(`no lane ${lane}`);
      return own;
    },
    begin(lane, pass) {
      const { resume, readFrom } = book.begin(pass.path, pass.ino, pass.start, pass.stillThere);
      current.set(lane, { path: pass.path, ino: pass.ino });
      send({
        op: 'begin',
        lane,
        pass: {
          path: pass.path,
          start: pass.start,
          fileId: pass.fileId,
          search: pass.search,
          ...(pass.rows === undefined ? {} : { rows: pass.rows }),
        },
        resume,
      });
      return readFrom;
    },
    parse,
    end(lane, completeOffset, nextOffset, keep, fingerprint) {
      const pass = current.get(lane);
      current.delete(lane);
      send({
        op: 'end',
        lane,
        keep: keep && pass !== undefined && book.end(pass.path, pass.ino, completeOffset, nextOffset, fingerprint),
      });
    },
    forget(path) {
      book.forget(path);
      send({ op: 'forget', path });
    },
    close,
  };
}

export function createInlineParser(options: ParserOptions): LineParser {
  const parser = new ChunkParser(options.maxLineBytes);
  const slots = slotViews(
    new ArrayBuffer(options.slotBytes * SLOTS_PER_LANE * options.lanes),
    options.lanes,
    options.slotBytes,
  );
  const failures = new Map<number, Error>();
  const send = (op: ParseOp) => {
    // A failed begin fails the pass's parses, as it does in the worker.
    try {
      applyOp(parser, slots, op);
      if (op.op === 'begin') failures.delete(op.lane);
    } catch (error) {
      if (op.op === 'begin') failures.set(op.lane, error as Error);
    }
  };
  const parse = (lane: number, slot: number, length: number, at = 0): Promise<ParsedChunk> => {
    const failure = failures.get(lane);
    if (failure !== undefined) return Promise.reject(failure);
    try {
      return Promise.resolve(applyOp(parser, slots, { op: 'parse', id: 0, lane, slot, length, at }) as ParsedChunk);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  return withBook(options, slots, send, parse, async () => {});
}

export function createWorkerParser(options: ParserOptions): LineParser {
  const memory = new SharedArrayBuffer(options.slotBytes * SLOTS_PER_LANE * options.lanes);
  const slots = slotViews(memory, options.lanes, options.slotBytes);
  const data: ParseWorkerData = {
    memory,
    lanes: options.lanes,
    slotBytes: options.slotBytes,
    maxLineBytes: options.maxLineBytes,
  };
  // Started now, so that loading its modules overlaps the daemon's start-up and first scan. A
  // worker lost takes its kept partial lines with it; a pass that expects one fails and is run again.
  const worker = createWorkerClient<{ value: ParsedChunk }>({
    script: workerScript(import.meta.url, 'parse-worker.js'),
    name: 'parse worker',
    workerData: data,
    eager: true,
  });
  const parse = async (lane: number, slot: number, length: number, at = 0) =>
    (await worker.request((id) => ({ op: 'parse', id, lane, slot, length, at }) satisfies ParseOp)).value;
  return withBook(
    options,
    slots,
    (op) => worker.send(op),
    parse,
    () => worker.close(),
  );
}
