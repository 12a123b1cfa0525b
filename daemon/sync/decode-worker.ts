/**
 * The sync decoder's worker thread (issue 35): another machine's archive files decoded here, off
 * the daemon's main thread, whose turns a large history's ingest fills (decoding there waited
 * behind each commit at every await: a 600 MB history took ~8 s to decode inside the daemon where
 * it took 1.2 s alone). Requests run concurrently (each waits on its files and the zlib pool).
 */
import { lstat } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import type { DecodeReply, DecodeRequest } from './decode-pool.js';
import { decodeFile } from './decoder.js';

const port = parentPort;
if (port === null) throw new Error('decode-worker.js runs only as a worker thread');

port.on('message', (request: DecodeRequest) => {
  void (async (): Promise<DecodeReply> => {
    try {
      const result = await decodeFile(request.source, request.target, request.known, request.ids, request.budget);
      const stat = result.changed ? await lstat(request.target).catch(() => null) : null;
      const decoded =
        stat?.isFile() === true
          ? { path: request.target, size: stat.size, ino: String(stat.ino), mtimeMs: stat.mtimeMs }
          : null;
      return { id: request.id, result, decoded };
    } catch (error) {
      return { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
  })().then((reply) => port.postMessage(reply));
});
