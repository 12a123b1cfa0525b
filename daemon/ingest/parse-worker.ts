/**
 * The parse worker's entry point: runs a ChunkParser over chunks the main thread reads into shared
 * slots, one op at a time in arrival order, and answers each `parse` with its result or its error.
 * After a failed `begin` every `parse` of that pass fails too, so no chunk is parsed out of place.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChunkParser, type ParsedChunk } from './chunk-parser.js';
import { applyOp, slotViews, type ParseOp, type ParseReply, type ParseWorkerData } from './parser.js';

// Sent by createWorkerParser in this package, not by an outside party.
const data = workerData as ParseWorkerData;
const port = parentPort;
if (port === null) throw new Error('parse-worker.js runs only as a worker thread');
const parser = new ChunkParser(data.maxLineBytes);
const slots = slotViews(data.memory, data.slotBytes);
let failure: string | null = null;

port.on('message', (op: ParseOp) => {
  let reply: ParseReply | null = null;
  try {
    if (op.op === 'parse' && failure !== null) throw new Error(failure);
    const value = applyOp(parser, slots, op);
    if (op.op === 'begin') failure = null;
    if (op.op === 'parse') reply = { id: op.id, value: value as ParsedChunk };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (op.op === 'begin') failure = message;
    if (op.op === 'parse') reply = { id: op.id, error: message };
  }
  if (reply !== null) port.postMessage(reply);
});
