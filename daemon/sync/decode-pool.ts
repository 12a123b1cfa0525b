/**
 * The main thread's side of the decode worker (decode-worker.ts): started on first use, so that a
 * machine with nothing to receive never starts it; inline decoding where no worker is wanted (tests).
 */
import { lstat } from 'node:fs/promises';
import { createWorkerClient, type WorkerReply } from '../workers/client.js';
import { workerScript } from '../workers/script.js';
import { type DecodeResult, decodeFile } from './decoder.js';
import type { ReceivedRow } from './store.js';

/** A decoded file that grew, as ingest's backfill takes it. */
export interface DecodedFile {
  path: string;
  size: number;
  ino: string;
  mtimeMs: number;
}

export interface DecodeRequest {
  id: number;
  source: string;
  target: string;
  known: ReceivedRow | undefined;
  ids: { device: string; rel: string };
  budget: number;
}

export type DecodeReply = WorkerReply<{ result: DecodeResult; decoded: DecodedFile | null }>;

export interface Decoder {
  /** decoder.ts decodeFile, and the decoded file's identity when it changed. */
  decode(request: Omit<DecodeRequest, 'id'>): Promise<{ result: DecodeResult; decoded: DecodedFile | null }>;
  close(): Promise<void>;
}

export function createWorkerDecoder(): Decoder {
  const worker = createWorkerClient<{ result: DecodeResult; decoded: DecodedFile | null }>({
    script: workerScript(import.meta.url, 'decode-worker.js'),
    name: 'sync decode worker',
  });
  return {
    async decode(request) {
      const { result, decoded } = await worker.request((id) => ({ ...request, id }) satisfies DecodeRequest);
      return { result, decoded };
    },
    close: () => worker.close(),
  };
}

/** decoder.ts decodeFile, and the decoded file's identity when it changed: what the worker does for a request. */
export async function decodeWithIdentity(
  request: Omit<DecodeRequest, 'id'>,
): Promise<{ result: DecodeResult; decoded: DecodedFile | null }> {
  const result = await decodeFile(request.source, request.target, request.known, request.ids, request.budget);
  const stat = result.changed ? await lstat(request.target).catch(() => null) : null;
  const decoded =
    stat?.isFile() === true
      ? { path: request.target, size: stat.size, ino: String(stat.ino), mtimeMs: stat.mtimeMs }
      : null;
  return { result, decoded };
}

export function createInlineDecoder(): Decoder {
  return { decode: decodeWithIdentity, close: async () => undefined };
}
