import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listHistory } from '../../../../../daemon/memory/history/list.js';
import { historyFile } from '../../../../../shared/paths.js';
import { historyDisplay } from '../../../../helpers/history-writer-child.mjs';

const CHILD_SCRIPT = resolve(import.meta.dirname, '../../../../helpers/history-writer-child.mjs');
const WRITERS = ['a', 'b'];
/** Lines per writer: ~2 KB each, a few hundred milliseconds of writing. */
const LINES = 10_000;
/** Listings cannot outnumber this even if the writers stall; they stop when the writers are done. */
const MAX_ROUNDS = 20_000;
/** Slack for two processes starting on a loaded 2-core machine. */
const START_DEADLINE_MS = 10_000;

let root: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-history-concurrent-'));
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

interface Writer {
  /** Resolves once the first lines are written. */
  started: Promise<void>;
  /** Resolves with the number of lines written, once the writer has exited. */
  finished: Promise<number>;
  exited(): boolean;
}

function startWriter(name: string): Writer {
  const child = spawn(process.execPath, [CHILD_SCRIPT, historyFile(root), name, String(LINES)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  let onStarted: () => void = () => {};
  const started = new Promise<void>((resolveStarted, reject) => {
    onStarted = resolveStarted;
    setTimeout(
      () => reject(new Error(`writer ${name} did not start within ${START_DEADLINE_MS} ms: ${stderr}`)),
      START_DEADLINE_MS,
    ).unref();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('started\n')) onStarted();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited = false;
  const finished = new Promise<number>((resolveFinished, reject) => {
    child.on('exit', (code) => {
      exited = true;
      const count = Number(stdout.trim().split('\n').at(-1));
      if (code === 0 && Number.isSafeInteger(count)) resolveFinished(count);
      else reject(new Error(`writer ${name} exited with ${code}: ${stderr}`));
    });
  });
  return { started, finished, exited: () => exited };
}

/** What one listing shows: for each writer, the indexes it returned, newest first. */
function checkListing(entries: { display: string; sessionId: string | null }[]): Map<string, number[]> {
  const seen = new Map<string, number[]>();
  for (const entry of entries) {
    const match = /^writer (\w+) prompt (\d+) /.exec(entry.display);
    if (match === null) throw new Error(`an entry no writer wrote: ${entry.display.slice(0, 80)}`);
    const [, writer = '', indexText = ''] = match;
    const index = Number(indexText);
    // Whole: exactly the display the writer wrote for this index, not a torn or spliced one.
    expect(entry.display).toBe(historyDisplay(writer, index));
    expect(entry.sessionId).toBe(`writer-${writer}`);
    seen.set(writer, [...(seen.get(writer) ?? []), index]);
  }
  for (const [writer, indexes] of seen) {
    // A page is a run of the file's lines: each writer's part of it has no gaps.
    expect(indexes, `writer ${writer}`).toEqual(indexes.map((_, offset) => (indexes[0] ?? 0) - offset));
  }
  return seen;
}

describe('listHistory while Claude Code appends', () => {
  it('returns only whole entries that were written, while two processes append', async () => {
    writeFileSync(historyFile(root), '');
    const writers = WRITERS.map(startWriter);
    await Promise.all(writers.map((writer) => writer.started));
    const newest = new Map<string, number>();
    let progressed = 0;
    for (let round = 0; round < MAX_ROUNDS && !writers.every((writer) => writer.exited()); round++) {
      const result = await listHistory(root, { limit: 100 });
      expect(result.badLines).toBe(0);
      for (const [writer, indexes] of checkListing(result.entries)) {
        const top = indexes[0] ?? -1;
        expect(top).toBeGreaterThanOrEqual(newest.get(writer) ?? -1);
        if (top > (newest.get(writer) ?? -1)) progressed++;
        newest.set(writer, top);
      }
    }
    const counts = await Promise.all(writers.map((writer) => writer.finished));
    // The listings saw the file grow: they ran while lines were being written.
    expect(progressed).toBeGreaterThan(WRITERS.length);

    const final = await listHistory(root, { limit: 100 });
    expect(final.badLines).toBe(0);
    const seen = checkListing(final.entries);
    WRITERS.forEach((writer, index) => {
      const count = counts[index] ?? 0;
      expect(count).toBe(LINES);
      if (seen.has(writer)) expect(seen.get(writer)?.[0]).toBe(count - 1);
    });
    // Fewer than the limit when the page's oldest millisecond (shared by many lines here) moves to the next page.
    expect(final.entries.length).toBeGreaterThan(0);
    expect(final.nextBefore).toBe(final.entries.at(-1)?.timestamp);
  });
});
