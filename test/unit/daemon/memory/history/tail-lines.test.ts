import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TailLineOptions, TailLineReader } from '../../../../../daemon/memory/history/tail-lines.js';
import { seededRandom } from '../../../../helpers/seeded-random.mjs';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-tail-lines-'));
  file = join(dir, 'log.jsonl');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every line the reader hands out, newest first; bounded by the file's byte count. */
async function readAll(
  content: string | Buffer,
  options: TailLineOptions = {},
): Promise<{ lines: string[]; reader: TailLineReader }> {
  writeFileSync(file, content);
  const reader = await TailLineReader.open(file, options);
  if (reader === null) throw new Error('the file was just written');
  const lines: string[] = [];
  try {
    const bound = Buffer.byteLength(content) + 2;
    for (let round = 0; round < bound; round++) {
      const line = await reader.next();
      if (line === null) return { lines, reader };
      lines.push(line.toString('utf8'));
    }
    throw new Error('the reader returned more lines than the file has bytes');
  } finally {
    await reader.close();
  }
}

/** The complete lines of `content`, newest first: what the reader must return. */
function expectedLines(content: string): string[] {
  const end = content.lastIndexOf('\n');
  if (end < 0) return [];
  return content.slice(0, end).split('\n').reverse();
}

describe('TailLineReader', () => {
  it('returns nothing for a missing file', async () => {
    expect(await TailLineReader.open(join(dir, 'nope.jsonl'))).toBeNull();
  });

  it('returns complete lines newest first and leaves out an unterminated last line', async () => {
    expect((await readAll('one\ntwo\nthree\n')).lines).toEqual(['three', 'two', 'one']);
    expect((await readAll('one\ntwo\nthr')).lines).toEqual(['two', 'one']);
    expect((await readAll('no newline at all')).lines).toEqual([]);
    expect((await readAll('')).lines).toEqual([]);
  });

  it('joins lines across chunk boundaries for every chunk size, with the same result as splitting the whole file', async () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 40; trial++) {
      const lines = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        (_, index) => `${index}:${'é'.repeat(Math.floor(random() * 9))}${'x'.repeat(Math.floor(random() * 30))}`,
      );
      const tail = random() < 0.5 ? '' : 'half-writ';
      const content = `${lines.join('\n')}\n${tail}`;
      for (const chunkBytes of [1, 2, 3, 5, 8, 13, 64, 4096]) {
        expect((await readAll(content, { chunkBytes })).lines, `trial ${trial}, chunk ${chunkBytes}`).toEqual(
          expectedLines(content),
        );
      }
    }
  });

  it('drops an unterminated tail longer than a chunk without keeping it', async () => {
    const content = `first\nsecond\n${'t'.repeat(1000)}`;
    expect((await readAll(content, { chunkBytes: 16 })).lines).toEqual(['second', 'first']);
  });

  it('counts and drops lines over the limit, keeping the lines around them', async () => {
    const content = `short\n${'a'.repeat(100)}\nmiddle\n${'b'.repeat(100)}\nlast\n`;
    const { lines, reader } = await readAll(content, { chunkBytes: 8, maxLineBytes: 50 });
    expect(lines).toEqual(['last', 'middle', 'short']);
    expect(reader.longLines).toBe(2);
  });

  it('reads only the tail of a large file for the newest lines', async () => {
    const content = `${Array.from({ length: 50_000 }, (_, index) => `line ${index}`).join('\n')}\n`;
    writeFileSync(file, content);
    const reader = await TailLineReader.open(file, { chunkBytes: 4096 });
    if (reader === null) throw new Error('the file was just written');
    try {
      for (let index = 49_999; index > 49_989; index--) expect((await reader.next())?.toString()).toBe(`line ${index}`);
      expect(reader.bytesRead).toBe(4096);
      expect(reader.done).toBe(false);
    } finally {
      await reader.close();
    }
  });

  it('ends without a torn line when the file is truncated while it is read', async () => {
    const content = `${Array.from({ length: 1000 }, (_, index) => `line ${index}`).join('\n')}\n`;
    writeFileSync(file, content);
    const reader = await TailLineReader.open(file, { chunkBytes: 64 });
    if (reader === null) throw new Error('the file was just written');
    const lines: string[] = [];
    try {
      lines.push((await reader.next())?.toString() ?? '');
      truncateSync(file, 100);
      for (let round = 0; round < 2000; round++) {
        const line = await reader.next();
        if (line === null) break;
        lines.push(line.toString());
      }
    } finally {
      await reader.close();
    }
    expect(lines[0]).toBe('line 999');
    // Only lines read before the truncation, each one whole.
    for (const line of lines) expect(line).toMatch(/^line \d+$/);
    expect(lines.length).toBeLessThan(20);
  });
});
