/**
 * The parts of a session's transcripts a handoff needs, read with bounded memory. The index says
 * where each entry is; only the entries that carry facts are read back by offset (transcripts/entries.ts):
 * prompts, assistant messages (tool calls and their inputs), failed results, and the results whose
 * metadata matters (Write: created or overwritten; TaskCreate: the task id). A successful Read or
 * Bash result, often the bulk of a transcript, becomes a stub that keeps only its tool_use_id and
 * status; older replies without tool calls are not read at all; what is read is slimmed (thinking
 * and images dropped, long texts cut in the middle: transcripts/slim.ts) before the next batch is
 * read. Lines the index has not reached yet (the hook fires right after a write) are scanned from
 * the file, as is a whole file the index does not know or that changed under it.
 */

import { HANDOFF_TAIL_BYTES } from '../../shared/handoff/tail.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { parseTranscriptJson } from '../../shared/transcript/depth.js';
import { parseEntry } from '../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { openRegularFile } from '../fs/read.js';
import { type LoadedEntry, loadEntries } from '../transcripts/entries.js';
import { MAX_ENTRY_BYTES, slim, stub } from '../transcripts/slim.js';
import { createSlicer } from '../workers/slices.js';

/**
 * Bytes read back at once: with the slimming below, the peak memory of a handoff whatever the
 * transcript's size; and small enough that reading and parsing one batch is a short slice of the
 * event loop (issue 27: 8 MiB batches back to back held it for the whole session).
 */
const READ_BATCH_BYTES = 1024 * 1024;
/** Assistant entries without tool calls read, the newest: of the replies, only the last ones are used. */
export const LAST_REPLIES = 20;
/** Forward scans read this much at a time. */
const SCAN_CHUNK_BYTES = 1024 * 1024;
/** Successful results of these tools are read: their metadata says what the call did. */
const RESULT_TOOLS = new Set(['Write', 'TaskCreate']);
const NEWLINE = 0x0a;

// The slimming is shared with the reader of a session's file facts before a compaction.
export { KEEP_INPUT_CHARS, KEEP_TEXT_CHARS, MAX_ENTRY_BYTES } from '../transcripts/slim.js';

type Choice = 'skip' | 'stub' | 'read';

/** Tool names by tool_use id, learnt from assistant entries in file order. */
type ToolNames = Map<string, string>;

/** `reply`: an assistant entry without tool calls that is among the last LAST_REPLIES. */
function choose(entry: IndexedEntry, names: ToolNames, sidechainFile: boolean, recentReply: boolean): Choice {
  for (const use of entry.toolUses) names.set(use.id, use.name);
  if (entry.type !== 'user' && entry.type !== 'assistant') return 'skip';
  // Old Claude Code versions wrote sub-agent entries into the main transcript; they are the agent's.
  if (entry.isSidechain && !sidechainFile) return 'skip';
  if (entry.type === 'assistant' && entry.toolUses.length === 0 && !recentReply) return 'skip';
  const results = entry.toolResults;
  if (entry.length > MAX_ENTRY_BYTES) return results.length > 0 || entry.toolUses.length > 0 ? 'stub' : 'skip';
  if (results.length === 0) return 'read';
  return results.some((result) => result.isError || RESULT_TOOLS.has(names.get(result.id) ?? '')) ? 'read' : 'stub';
}

/**
 * Reads `entries` back by offset in batches of READ_BATCH_BYTES, each slimmed before the next, in
 * slices of the event loop (daemon/workers/slices.ts); stops when `signal` aborts.
 */
async function readSlim(path: string, entries: readonly IndexedEntry[], signal?: AbortSignal): Promise<LoadedEntry[]> {
  const slicer = createSlicer(signal);
  const read: LoadedEntry[] = [];
  let batch: IndexedEntry[] = [];
  let bytes = 0;
  const flush = () => {
    for (const loaded of loadEntries(path, batch)) read.push(slim(loaded));
    batch = [];
    bytes = 0;
  };
  for (const entry of entries) {
    batch.push(entry);
    bytes += entry.length;
    if (bytes >= READ_BATCH_BYTES) {
      flush();
      await slicer.tick();
    }
  }
  flush();
  return read;
}

/** Indexed entries of one file, read back as `choose` says. InvalidTranscript when the file changed under the index. */
export async function loadIndexed(
  path: string,
  entries: readonly IndexedEntry[],
  sidechainFile: boolean,
  signal?: AbortSignal,
): Promise<LoadedEntry[]> {
  const names: ToolNames = new Map();
  const replies = entries.flatMap((entry, at) =>
    entry.type === 'assistant' && entry.toolUses.length === 0 ? [at] : [],
  );
  const firstRecent = replies.at(-LAST_REPLIES) ?? 0;
  const choices = entries.map((entry, at) => choose(entry, names, sidechainFile, at >= firstRecent));
  const read = await readSlim(
    path,
    entries.filter((_, at) => choices[at] === 'read'),
    signal,
  );
  let next = 0;
  return entries.flatMap((entry, at) => {
    const choice = choices[at];
    if (choice === 'skip') return [];
    return [choice === 'read' ? (read[next++] as LoadedEntry) : stub(entry)];
  });
}

/**
 * The complete lines of `path` from `fromOffset` on, parsed and chosen as `loadIndexed` does; an
 * unfinished last line (Claude Code is writing it) and lines over MAX_ENTRY_BYTES are left out.
 */
export async function scanFile(
  path: string,
  fromOffset: number,
  sidechainFile: boolean,
  signal?: AbortSignal,
): Promise<LoadedEntry[]> {
  const names: ToolNames = new Map();
  const loaded: LoadedEntry[] = [];
  const take = (bytes: Buffer, offset: number) => {
    let value: unknown;
    try {
      value = parseTranscriptJson(bytes.toString('utf8'));
    } catch {
      return;
    }
    const entry = parseEntry(value, offset, bytes.length);
    if (entry === null) return;
    // A scan cannot know which replies are the last: it keeps them all (slimmed).
    const choice = choose(entry, names, sidechainFile, true);
    if (choice === 'read') loaded.push(slim({ entry, raw: value as Record<string, unknown> }));
    else if (choice === 'stub') loaded.push(stub(entry));
  };
  const file = await openRegularFile(path);
  try {
    const chunk = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let lineStart = fromOffset;
    let oversize = false;
    let position = fromOffset;
    // Each pass reads one chunk and `position` only grows, up to the size the file has.
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      let start = 0;
      for (
        let newline = chunk.indexOf(NEWLINE, 0);
        newline !== -1 && newline < bytesRead;
        newline = chunk.indexOf(NEWLINE, start)
      ) {
        if (!oversize && pendingBytes + newline - start <= MAX_ENTRY_BYTES)
          take(Buffer.concat([...pending, chunk.subarray(start, newline)]), lineStart);
        pending = [];
        pendingBytes = 0;
        oversize = false;
        start = newline + 1;
        lineStart = position + start;
      }
      if (!oversize && pendingBytes + bytesRead - start <= MAX_ENTRY_BYTES) {
        pending.push(Buffer.from(chunk.subarray(start, bytesRead)));
        pendingBytes += bytesRead - start;
      } else {
        oversize = true;
        pending = [];
        pendingBytes = 0;
      }
      position += bytesRead;
    }
  } finally {
    await file.close();
  }
  return loaded;
}

/**
 * One transcript file's entries for the facts: the indexed ones read back, then whatever was
 * written after the index's committed offset. A file that changed under the index is scanned whole.
 */
export async function loadTranscript(
  path: string,
  indexed: readonly IndexedEntry[],
  committedOffset: number,
  sidechainFile: boolean,
  signal?: AbortSignal,
): Promise<LoadedEntry[]> {
  let head: LoadedEntry[];
  try {
    head = await loadIndexed(path, indexed, sidechainFile, signal);
  } catch (error) {
    if (!(error instanceof RpcError && error.code === ErrorCode.InvalidTranscript)) throw error;
    return scanFile(path, 0, sidechainFile, signal);
  }
  const rest = await scanFile(path, committedOffset, sidechainFile, signal);
  return [...head, ...rest];
}

/** The transcript's last `bytes` as text, and whether they start inside a line. Empty when the file is gone. */
export async function readTail(
  path: string,
  bytes: number = HANDOFF_TAIL_BYTES,
): Promise<{ text: string; startsMidLine: boolean }> {
  let file;
  try {
    file = await openRegularFile(path);
  } catch {
    return { text: '', startsMidLine: false };
  }
  try {
    const { size } = await file.stat();
    // One byte more, to see whether the window starts just after a newline.
    const start = Math.max(0, size - bytes - 1);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
    const read = buffer.subarray(0, bytesRead);
    if (start === 0 && size <= bytes) return { text: read.toString('utf8'), startsMidLine: false };
    return { text: read.subarray(1).toString('utf8'), startsMidLine: read[0] !== NEWLINE };
  } finally {
    await file.close();
  }
}
