// The extract bench's second client, in its own process: it asks for the extractions, so that
// handling their answers (tens of KB each) never delays the client that times daemon.status.
import { join } from 'node:path';
import { ROOT } from './lib.js';

const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
const client = createClient({ env: process.env, autostart: false, timeoutMs: 60_000 });
process.on('message', async (ids) => {
  try {
    await Promise.all(ids.map((sessionId) => client.memoryExtract({ sessionId })));
    process.send({ ok: true });
  } catch (error) {
    process.send({ ok: false, error: String(error) });
  }
});
process.on('disconnect', () => {
  client.close();
});
