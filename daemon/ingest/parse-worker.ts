/**
 * The parse worker's entry point: runs a ChunkParser over chunks the main thread reads into shared
 * slots, one op at a time in arrival order, and answers each `parse` with its result or its error.
 * After a failed `begin` every `parse` of that lane's pass fails too, so no chunk is parsed out of place.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChunkParser } from './chunk-parser.js';
import { applyOp, type ParseOp, type ParseReply, type ParseWorkerData, slotViews } from './parser.js';
import type { ParsedChunk } from './types.js';

// Sent by createWorkerParser in this package, not by an outside party.
const data = workerData as ParseWorkerData;
const port = parentPort;
if (port === null) throw new Error('parse-worker.js runs only as a worker thread');
const parser = new ChunkParser(data.maxLineBytes);
const slots = slotViews(data.memory, data.lanes, data.slotBytes);
const failures = new Map<number, string>();

port.on('message', (op: ParseOp) => {
  let reply: ParseReply | null = null;
  try {
    const failure = op.op === 'parse' ? failures.get(op.lane) : undefined;
    if (failure !== undefined) throw new Error(failure);
    const value = applyOp(parser, slots, op);
    if (op.op === 'begin') failures.delete(op.lane);
    if (op.op === 'parse') reply = { id: op.id, value: value as ParsedChunk };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (op.op === 'begin') failures.set(op.lane, message);
    if (op.op === 'parse') reply = { id: op.id, error: message };
  }
  if (reply !== null) port.postMessage(reply);
});
