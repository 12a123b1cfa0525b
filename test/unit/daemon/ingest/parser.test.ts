import { afterEach, describe, expect, it } from 'vitest';
import { CarryBook } from '../../../../daemon/ingest/chunk-parser.js';
import {
  createInlineParser,
  createWorkerParser,
  type LineParser,
  type ParserOptions,
} from '../../../../daemon/ingest/parser.js';

const OPTIONS: ParserOptions = { lanes: 2, slotBytes: 64, maxLineBytes: 1024, carryBudgetBytes: 100 };
const entry = (n: number) =>
  `{"type":"user","uuid":"u${n}","timestamp":"2026-01-0${n}T00:00:00.000Z","message":{"role":"user","content":"m${n}"}}\n`;

const opened: LineParser[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((parser) => parser.close()));
});

describe('CarryBook', () => {
  it('resumes a kept line only for the same file, inode and offset', () => {
    const book = new CarryBook(1024, 100);
    expect(book.end('a', '1', 10, 30)).toBe(true);
    expect(book.begin('a', '2', 10)).toEqual({ resume: false, readFrom: 10 });
    expect(book.end('a', '1', 10, 30)).toBe(true);
    expect(book.begin('a', '1', 12)).toEqual({ resume: false, readFrom: 12 });
    expect(book.end('a', '1', 10, 30)).toBe(true);
    expect(book.begin('a', '1', 10)).toEqual({ resume: true, readFrom: 30 });
    // Used up: a second pass starts over.
    expect(book.begin('a', '1', 10)).toEqual({ resume: false, readFrom: 10 });
  });

  it('keeps lines within the budget, and lines over the limit at no cost (only their length is kept)', () => {
    const book = new CarryBook(50, 100);
    expect(book.end('a', '1', 0, 0)).toBe(false);
    expect(book.end('a', '1', 0, 40)).toBe(true);
    expect(book.end('b', '1', 0, 40)).toBe(true);
    expect(book.end('c', '1', 0, 40)).toBe(false);
    expect(book.end('d', '1', 0, 5_000)).toBe(true);
    book.forget('a');
    expect(book.end('c', '1', 0, 40)).toBe(true);
  });
});

describe.each([
  ['inline', createInlineParser],
  ['worker', createWorkerParser],
])('the %s parser', (_name, create) => {
  function parser(): LineParser {
    const made = create(OPTIONS);
    opened.push(made);
    return made;
  }

  async function feed(p: LineParser, lane: number, text: string, from: number) {
    const bytes = Buffer.from(text);
    const results = [];
    for (let at = 0; at < bytes.length; at += OPTIONS.slotBytes) {
      const slot = (at / OPTIONS.slotBytes) % p.slots(lane).length;
      const piece = bytes.subarray(at, at + OPTIONS.slotBytes);
      piece.copy(p.slots(lane)[slot] as Buffer);
      results.push(await p.parse(lane, slot, piece.length));
    }
    return { results, next: from + bytes.length };
  }

  it('parses two files in two lanes at once, each resuming its own kept line', async () => {
    const p = parser();
    const a = entry(1) + entry(2).slice(0, 30);
    const b = entry(3) + entry(4).slice(0, 50);
    expect(p.begin(0, { path: 'a', ino: '1', start: 0, fileId: 1, search: true })).toBe(0);
    expect(p.begin(1, { path: 'b', ino: '1', start: 0, fileId: 2, search: true })).toBe(0);
    const fedA = await feed(p, 0, a, 0);
    const fedB = await feed(p, 1, b, 0);
    expect(fedA.results.reduce((sum, chunk) => sum + chunk.count, 0)).toBe(1);
    expect(fedB.results.reduce((sum, chunk) => sum + chunk.count, 0)).toBe(1);
    const completeA = fedA.results.at(-1)?.completeOffset ?? 0;
    p.end(0, completeA, fedA.next, true);
    p.end(1, fedB.results.at(-1)?.completeOffset ?? 0, fedB.next, true);
    // The next pass over `a` reads on from where the last one stopped, not from its last line.
    const from = p.begin(0, { path: 'a', ino: '1', start: completeA, fileId: 1, search: true });
    expect(from).toBe(a.length);
    const rest = await feed(p, 0, entry(2).slice(30), from);
    expect(rest.results.at(-1)).toMatchObject({
      count: 1,
      completeOffset: entry(1).length + entry(2).length,
      newest: '2026-01-02T00:00:00.000Z',
    });
    expect(rest.results.at(-1)?.rows.slice(0, 3)).toEqual([1, entry(1).length, entry(2).length - 1]);
  });

  it('rejects a parse outside a pass with a clear error, and works at the next begin', async () => {
    const p = parser();
    await expect(p.parse(1, 0, 10)).rejects.toThrow('parse outside a pass in lane 1');
    p.begin(1, { path: 'a', ino: '1', start: 0, fileId: 1, search: true });
    const { results } = await feed(p, 1, entry(1), 0);
    expect(results.reduce((sum, chunk) => sum + chunk.count, 0)).toBe(1);
  });
});
