/** A temporary index of a projects dir, built inline (no daemon), for handoff tests of hand-written transcripts. */
import { join } from 'node:path';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { createTailer } from '../../../../daemon/ingest/tailer.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { classifyTranscript } from '../../../../shared/transcript/layout.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

/** Indexes every transcript under `projectsDir` into `<dir>/memd.sqlite` (again: only what was appended). */
export async function indexProjects(
  dir: string,
  projectsDir: string,
  store: Store = openStore(join(dir, 'memd.sqlite'), fakeLogger()),
): Promise<Store> {
  const tailer = createTailer({ db: store.db, log: fakeLogger(), clock: () => Date.now(), onCommit: () => {} });
  for (const file of await scanTranscripts(projectsDir)) {
    const target = classifyTranscript(projectsDir, file.path);
    if (target !== null) await tailer.pass(target, { shouldYield: () => false });
  }
  await tailer.close();
  return store;
}
