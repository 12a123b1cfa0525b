import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TreeWatch, watchTree } from '../../../../daemon/ingest/tree-watch.js';

const SESSION = '11111111-2222-4333-8444-555555555555';
const DEADLINE_MS = 10_000;

let root: string;
let watch: TreeWatch | null = null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-tree-watch-'));
});
afterEach(async () => {
  await watch?.close();
  watch = null;
  rmSync(root, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function start() {
  const changed: string[] = [];
  const errors: unknown[] = [];
  let ready = false;
  let dropped = 0;
  watch = watchTree(root, {
    changed: (path) => changed.push(path),
    rootDropped: () => (dropped += 1),
    ready: () => (ready = true),
    error: (error) => errors.push(error),
  });
  return { changed, errors, isReady: () => ready, dropped: () => dropped };
}

describe('the tree watch (one chokidar instance per project dir)', () => {
  it('is ready once every project dir there at the start is walked, and reports changes in each', async () => {
    const files = ['-a', '-b', '-c'].map((project) => {
      mkdirSync(join(root, project, SESSION, 'subagents'), { recursive: true });
      const path = join(root, project, `${SESSION}.jsonl`);
      writeFileSync(path, '{}\n');
      const agent = join(root, project, SESSION, 'subagents', 'agent-a1.jsonl');
      writeFileSync(agent, '{}\n');
      return [path, agent];
    });
    const watched = start();
    await until(watched.isReady, 'ready');
    // Existing files are not reported at the start: the start-up scan has them.
    expect(watched.changed).toEqual([]);
    for (const [path, agent] of files) {
      appendFileSync(path as string, '{}\n');
      appendFileSync(agent as string, '{}\n');
    }
    await until(() => files.flat().every((path) => watched.changed.includes(path)), 'a change in every file');
    expect(watched.errors).toEqual([]);
  });

  it('watches a project dir that appears later, reporting the files written before its watch existed', async () => {
    const watched = start();
    await until(watched.isReady, 'ready');
    const project = join(root, '-later');
    mkdirSync(project);
    const first = join(project, `${SESSION}.jsonl`);
    writeFileSync(first, '{}\n');
    await until(() => watched.changed.includes(first), 'the first file of the new project');
    const second = join(project, '22222222-2222-4333-8444-555555555555.jsonl');
    writeFileSync(second, '{}\n');
    await until(() => watched.changed.includes(second), 'a file added later');
    // Gone with its dir: its files are reported.
    watched.changed.length = 0;
    rmSync(project, { recursive: true });
    await until(() => watched.changed.includes(first), 'the removal');
    // Made again at once (inside the old watch's grace period): watched anew.
    watched.changed.length = 0;
    mkdirSync(project);
    writeFileSync(second, '{}\n');
    await until(() => watched.changed.includes(second), 'a file of the dir made again');
    appendFileSync(second, '{}\n');
    const reported = watched.changed.length;
    await until(() => watched.changed.length > reported, 'a change in it');
  });

  it('tells the files of a project dir that appeared once more when its watch is in place', async () => {
    // What is written to them between chokidar's walk of the new dir and its watches raises no
    // event (seen under load: a transcript created, read empty, then written): told again, the
    // ingest reads it again. Both files are told twice (the walk's add, then once watched).
    const watched = start();
    await until(watched.isReady, 'ready');
    const project = join(root, '-appeared');
    mkdirSync(join(project, SESSION, 'subagents'), { recursive: true });
    const main = join(project, `${SESSION}.jsonl`);
    const agent = join(project, SESSION, 'subagents', 'agent-a1.jsonl');
    writeFileSync(main, '{}\n');
    writeFileSync(agent, '{}\n');
    const told = (path: string) => watched.changed.filter((changed) => changed === path).length;
    await until(() => told(main) >= 2 && told(agent) >= 2, 'both files told twice');
    expect(watched.changed.filter((path) => !path.endsWith('.jsonl'))).toEqual([]);
  });

  it('says when the root itself goes away', async () => {
    // chokidar tells of a removed root through the watch of a dir inside it.
    mkdirSync(join(root, '-a'));
    const watched = start();
    await until(watched.isReady, 'ready');
    rmSync(root, { recursive: true });
    await until(() => watched.dropped() > 0, 'the root dropped');
  });
});
