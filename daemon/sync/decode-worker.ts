/**
 * The sync decoder's worker thread (issue 35): another machine's archive files decoded here, off
 * the daemon's main thread, whose turns a large history's ingest fills (decoding there waited
 * behind each commit at every await: a 600 MB history took ~8 s to decode inside the daemon where
 * it took 1.2 s alone). Requests run concurrently (each waits on its files and the zlib pool).
 */
import { parentPort } from 'node:worker_threads';
import { type DecodeReply, type DecodeRequest, decodeWithIdentity } from './decode-pool.js';

const port = parentPort;
if (port === null) throw new Error('decode-worker.js runs only as a worker thread');

port.on('message', (request: DecodeRequest) => {
  void decodeWithIdentity(request)
    .then(
      (decoded): DecodeReply => ({ id: request.id, ...decoded }),
      (error: unknown): DecodeReply => ({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      }),
    )
    .then((reply) => port.postMessage(reply));
});
