/**
 * The offline extraction's worker thread: reads the active conversation back from the transcript
 * and writes the offline summary, off the daemon's main thread (a 200K-token session takes tens of
 * milliseconds, which RPC clients would otherwise wait behind). One request at a time.
 */
import { parentPort } from 'node:worker_threads';
import { activeConversation } from '../../shared/transcript/conversation.js';
import { loadEntries } from '../compact/content.js';
import { offlineSessionMemory } from '../summarize/offline-memory.js';
import type { OfflineReply, OfflineRequest } from './offline-extractor.js';

const port = parentPort;
if (port === null) throw new Error('offline-worker.js runs only as a worker thread');

port.on('message', (request: OfflineRequest) => {
  let reply: OfflineReply;
  try {
    const loaded = loadEntries(request.path, activeConversation(request.entries).entries);
    const last = loaded.at(-1)?.entry ?? null;
    const text = offlineSessionMemory({ loaded, previous: request.previous, template: request.template, title: request.title });
    reply = { id: request.id, text, lastUuid: last?.uuid ?? null, lastOffset: last?.offset ?? null };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
