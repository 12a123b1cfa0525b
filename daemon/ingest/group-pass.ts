/**
 * One pass over many small files, for a backfill of thousands of short sessions: each file's new
 * bytes are read with synchronous calls (microseconds each from the page cache, where a
 * thread-pool call costs the main thread tens of microseconds and a round trip), packed into the
 * lane's slots and parsed in one pipeline, and every file is committed in one transaction. Two transactions per new file (its row, then its
 * lines) were most of a small file's ingest time. Only the plain case is read here: a file that
 * is gone, not a regular file, outside the projects dir or grown past its room in the slots gets
 * a null result, and the ingestor gives it a pass of its own, which handles all of those.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { TranscriptFile } from '../../shared/transcript/layout.js';
import { isInside, realPathOrNull } from '../fs/inside.js';
import { firstSessionId } from '../store/entry-row.js';
import type { FileRow } from '../store/rows.js';
import { commitTurn } from './commit-turn.js';
import { headFor, isSameFile } from './file-identity.js';
import { type LineParser, SLOTS_PER_LANE } from './parser.js';
import { ParseFault } from './retries.js';
import type { CommitEvent, FileIdentity, ParsedChunk, PassChoices, PassResult, TailerCounters } from './types.js';
import { type Commit, type IngestWriter, readsSearchTexts } from './writer.js';

/** A backfill file this small (at most) is read in a group: its per-file costs outweigh its parse. */
export const SMALL_FILE_BYTES = 256 * 1024;
/** Files per group: their one transaction stays near 10 ms. */
export const GROUP_FILES_MAX = 64;

/** The largest file a parser's slots take in a group (a quarter slot, so packing wastes little). */
export function smallFileBytes(slotBytes: number): number {
  return Math.min(SMALL_FILE_BYTES, Math.floor(slotBytes / 4));
}

/**
 * Bytes of small files (by their size when found) that always fit the lane's slots packed one
 * after the other: a slot wastes less than one small file at its end.
 */
export function groupBytes(slotBytes: number): number {
  return SLOTS_PER_LANE * (slotBytes - smallFileBytes(slotBytes));
}

export interface GroupPassDeps {
  writer: IngestWriter;
  parser: LineParser;
  lane: number;
  counters: TailerCounters;
  clock: () => number;
  onCommit(event: CommitEvent): void;
  /** tailer.ts TailerDeps.rootOf. */
  rootOf?: (target: TranscriptFile) => string;
}

interface Opened {
  at: number;
  target: TranscriptFile;
  fd: number;
  identity: FileIdentity;
}

interface Read {
  file: Opened & { row: FileRow };
  reset: boolean;
  start: number;
  /** Offset just past the bytes read. */
  position: number;
  bytesRead: number;
  parsed: Promise<ParsedChunk> | null;
  /** Whether its search texts were read (writer.ts readsSearchTexts). */
  search: boolean;
}

export function createGroupPass(
  deps: GroupPassDeps,
): (targets: readonly TranscriptFile[], options: PassChoices) => Promise<(PassResult | null)[]> {
  const { writer, parser, lane, counters } = deps;
  const slots = parser.slots(lane);
  const slotBytes = parser.slotBytes;

  /** Opens the targets it reads here (regular files inside the projects dir), with their identity. */
  const openAll = (targets: readonly TranscriptFile[], opened: Opened[], fds: number[]) => {
    const rootOf = deps.rootOf;
    targets.forEach((target, at) => {
      if (rootOf !== undefined) {
        const root = rootOf(target);
        const real = realPathOrNull(target.path);
        if (real === null || !isInside(realPathOrNull(root) ?? root, real)) return;
      }
      let fd: number;
      try {
        // Non-blocking: opening a FIFO put where a transcript was must not wait for a writer.
        fd = openSync(target.path, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch {
        return;
      }
      fds.push(fd);
      const stat = fstatSync(fd, { bigint: true });
      if (stat.isFile())
        opened.push({
          at,
          target,
          fd,
          identity: { dev: String(stat.dev), ino: String(stat.ino), size: Number(stat.size) },
        });
    });
  };

  return async (targets, options) => {
    const results: (PassResult | null)[] = targets.map(() => null);
    const opened: Opened[] = [];
    const fds: number[] = [];
    const reads: Read[] = [];
    try {
      openAll(targets, opened, fds);
      const rows = new Map(opened.map((file) => [file, writer.getFile(file.target.path)]));
      const added = opened.filter((file) => rows.get(file) === undefined);
      if (added.length > 0) {
        const inserted = writer.insertFiles(
          added.map(({ target, identity }) => ({ target, identity })),
          deps.clock(),
        );
        added.forEach((file, at) => rows.set(file, inserted[at]));
      }

      // Packed one after the other; a file that does not fit the slot left goes to the next one.
      let slot = 0;
      let offsetInSlot = 0;
      for (const file of opened) {
        const row = rows.get(file) as FileRow;
        const reset = !isSameFile(file.fd, row, file.identity, counters);
        const start = reset ? 0 : row.committed_offset;
        const need = file.identity.size - start;
        if (need > slotBytes) continue;
        if (offsetInSlot + need > slotBytes) {
          slot += 1;
          offsetInSlot = 0;
        }
        if (slot >= slots.length) continue;
        const search = readsSearchTexts(row, reset, options.deferSearch === true);
        const readFrom = parser.begin(lane, {
          path: file.target.path,
          ino: file.identity.ino,
          start,
          fileId: row.id,
          search,
        });
        let bytesRead = 0;
        let parsed: Promise<ParsedChunk> | null = null;
        try {
          bytesRead = readSync(file.fd, slots[slot] as Buffer, offsetInSlot, file.identity.size - readFrom, readFrom);
          if (bytesRead > 0) parsed = parser.parse(lane, slot, bytesRead, offsetInSlot);
        } finally {
          // Ended before the next file begins: a partial last line is read again by a later pass.
          parser.end(lane, 0, 0, false);
        }
        counters.bytesRead += bytesRead;
        offsetInSlot += bytesRead;
        reads.push({ file: { ...file, row }, reset, start, position: readFrom + bytesRead, bytesRead, parsed, search });
      }

      const commits: Commit[] = [];
      const events: CommitEvent[] = [];
      const changed = new Map<Read, boolean>();
      const now = deps.clock();
      for (const read of reads) {
        // Tagged, so that the ingestor backs off a parse failure as such and not as a read error.
        const parsed = await read.parsed?.catch((error: unknown) => {
          throw new ParseFault(error);
        });
        const { row, identity, target, fd } = read.file;
        const offset = parsed?.completeOffset ?? read.start;
        const count = parsed?.count ?? 0;
        const bad = parsed?.bad ?? [];
        const size = Math.max(identity.size, read.position);
        const stale = row.gone === 1 || row.size !== size || row.dev !== identity.dev || row.ino !== identity.ino;
        changed.set(read, read.reset || count > 0 || bad.length > 0 || offset !== read.start);
        if (!read.reset && read.bytesRead === 0 && !stale) continue;
        const entryRows = parsed === undefined || parsed.count === 0 ? [] : [parsed.rows];
        const sessionId = target.sessionFromEntries ? (firstSessionId(entryRows) ?? undefined) : undefined;
        const head = headFor(fd, row, offset, read.reset, counters);
        commits.push({
          row,
          reset: read.reset,
          rows: entryRows,
          count,
          newest: parsed?.newest ?? null,
          bad,
          identity: { ...identity, size },
          head,
          committedOffset: offset,
          bytesRead: read.bytesRead,
          now,
          sessionId,
          search: read.search ? (parsed?.search.length ? [parsed.search] : []) : undefined,
        });
        events.push({ file: target, row, entries: count, bad, reset: read.reset, bytesRead: read.bytesRead });
      }
      if (commits.length > 0) {
        await commitTurn(options.commitRank);
        writer.commitAll(commits);
      }
      for (const event of events) deps.onCommit(event);
      for (const read of reads) {
        const { row, identity, at } = read.file;
        // row.session_id as the commit filed it (a 2.0.x agent file: the session its entries name).
        results[at] = {
          outcome: 'caught-up',
          changed: changed.get(read) === true,
          bytesRead: read.bytesRead,
          end: { ino: identity.ino, size: read.position },
          sessionId: row.session_id,
        };
      }
      return results;
    } finally {
      // A slot still being parsed must not be read into by the next pass.
      await Promise.allSettled(reads.map((read) => read.parsed));
      for (const fd of fds) closeSync(fd);
    }
  };
}
