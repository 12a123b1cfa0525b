/**
 * One of several processes writing the same memory dir through memd's store (compiled, in dist/),
 * for test/integration/memdir-stress.test.ts. Plain JS so that it runs as its own process.
 *
 *   node memdir-writer-child.mjs <projectsDir> <project> <writes> <names> <seed>
 *
 * Makes <writes> read-modify-write rounds on random memories among <names>: reads the memory's
 * counter and etag, writes counter + 1 with ifMatch (or creates it with ifMatch null). A Conflict
 * is counted; any other error fails the process. Prints one JSON line: the successful writes as
 * [name, counter] pairs, and the number of conflicts.
 */
import { resolve } from 'node:path';
import { seededRandom } from './seeded-random.mjs';

const [projectsDir, project, writesArg, namesArg, seedArg] = process.argv.slice(2);
const root = resolve(import.meta.dirname, '../..');
const { createMemdirStore } = await import(resolve(root, 'dist/daemon/memory/memdir/store.js'));
const store = createMemdirStore({ projectsDir, clock: Date.now });
const names = Number(namesArg);
const random = seededRandom(Number(seedArg));

const written = [];
let conflicts = 0;
for (let round = 0; round < Number(writesArg); round++) {
  const name = `stress/memory-${Math.floor(random() * names)}`;
  let counter = 0;
  let ifMatch = null;
  try {
    const found = await store.read(project, 'private', name);
    counter = Number(/count (\d+)/.exec(found.content)?.[1]);
    ifMatch = found.etag;
  } catch (error) {
    if (error.kind !== 'NotFound') throw error;
  }
  try {
    await store.write({
      project,
      name,
      type: 'project',
      description: `count ${counter + 1}`,
      content: `count ${counter + 1}\n`,
      ifMatch,
    });
    written.push([name, counter + 1]);
  } catch (error) {
    if (error.kind !== 'Conflict') throw error;
    conflicts++;
  }
}
process.stdout.write(`${JSON.stringify({ written, conflicts })}\n`);
