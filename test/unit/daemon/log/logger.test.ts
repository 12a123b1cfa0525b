import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, rotatingFileSink, stderrSink } from '../../../../daemon/log/logger.js';
import type { LogLevel } from '../../../../shared/config.js';

const NOW = new Date('2024-05-06T07:08:09.010Z');
const clock = () => NOW;

/** A sink that keeps what it is given. */
function memorySink() {
  const written: { level: LogLevel; line: string }[] = [];
  return {
    written,
    sink: { file: null, write: (level: LogLevel, line: string) => void written.push({ level, line }), close() {} },
  };
}

describe('createLogger', () => {
  it.each([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
  ] as const)('at level %s writes %j', (level, expected) => {
    const { written, sink } = memorySink();
    const log = createLogger(sink, level, clock);
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(written.map((entry) => entry.level)).toEqual(expected);
  });

  it('writes one JSON object per line: time, level, msg, then the fields', () => {
    const { written, sink } = memorySink();
    createLogger(sink, 'info', clock).info('client connected', { connection: 3, nested: { a: [1] } });
    expect(written).toHaveLength(1);
    const line = written[0]?.line ?? '';
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      time: NOW.toISOString(),
      level: 'info',
      msg: 'client connected',
      connection: 3,
      nested: { a: [1] },
    });
    expect(Object.keys(JSON.parse(line) as object).slice(0, 3)).toEqual(['time', 'level', 'msg']);
  });

  it('serializes an Error field with its name, message and stack', () => {
    const { written, sink } = memorySink();
    const error = new TypeError('bad thing');
    createLogger(sink, 'info', clock).error('failed', { error });
    const parsed = JSON.parse(written[0]?.line ?? '') as { error: Record<string, unknown> };
    expect(parsed.error).toEqual({ name: 'TypeError', message: 'bad thing', stack: error.stack });
  });

  it('keeps a message with newlines on one line', () => {
    const { written, sink } = memorySink();
    createLogger(sink, 'info', clock).warn('two\nlines');
    expect(written[0]?.line.split('\n')).toHaveLength(2);
    expect((JSON.parse(written[0]?.line ?? '') as { msg: string }).msg).toBe('two\nlines');
  });

  it('reports the sink file and closes it', () => {
    const close = vi.fn();
    const log = createLogger({ file: '/x/memd.log', write() {}, close }, 'info');
    expect(log.file).toBe('/x/memd.log');
    log.close();
    expect(close).toHaveBeenCalledOnce();
  });
});

describe('stderrSink', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function captureStderr(): string[] {
    const chunks: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    });
    return chunks;
  }

  it('prefixes each line with its journald priority under systemd', () => {
    const chunks = captureStderr();
    const log = createLogger(stderrSink(true), 'debug', clock);
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    vi.restoreAllMocks();
    expect(chunks.map((chunk) => chunk.slice(0, 3))).toEqual(['<7>', '<6>', '<4>', '<3>']);
    expect(JSON.parse(chunks[1]?.slice(3) ?? '')).toMatchObject({ level: 'info', msg: 'i' });
    expect(log.file).toBeNull();
  });

  it('writes bare JSON lines without journald', () => {
    const chunks = captureStderr();
    createLogger(stderrSink(false), 'info', clock).info('plain');
    vi.restoreAllMocks();
    expect(chunks).toHaveLength(1);
    expect(JSON.parse(chunks[0] ?? '')).toEqual({ time: NOW.toISOString(), level: 'info', msg: 'plain' });
  });
});

describe('rotatingFileSink', () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memd-log-'));
    path = join(dir, 'memd.log');
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A 10-byte line whose first characters are its number. */
  const line = (n: number) => `${String(n).padStart(9, '0')}\n`;
  const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);

  it('creates the file 0600 and appends to it', () => {
    const sink = rotatingFileSink(path, 1_000, 3);
    sink.write('info', line(1));
    sink.write('info', line(2));
    sink.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(linesOf(path)).toEqual([1, 2]);
    expect(sink.file).toBe(path);
  });

  it('rotates before a line would pass maxBytes', () => {
    const sink = rotatingFileSink(path, 30, 3);
    for (let n = 1; n <= 4; n++) sink.write('info', line(n));
    sink.close();
    expect(linesOf(`${path}.1`)).toEqual([1, 2, 3]);
    expect(linesOf(path)).toEqual([4]);
  });

  it('keeps memd.log.1 .. memd.log.N, newest first, and never more', () => {
    const KEEP = 3;
    const sink = rotatingFileSink(path, 20, KEEP);
    // Two lines a file: 20 lines make ten files' worth.
    for (let n = 1; n <= 20; n++) sink.write('info', line(n));
    sink.close();
    expect(readdirSync(dir).sort()).toEqual(['memd.log', 'memd.log.1', 'memd.log.2', 'memd.log.3']);
    expect(linesOf(path)).toEqual([19, 20]);
    expect(linesOf(`${path}.1`)).toEqual([17, 18]);
    expect(linesOf(`${path}.2`)).toEqual([15, 16]);
    expect(linesOf(`${path}.3`)).toEqual([13, 14]);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(20);
  });

  it('keeps one rotated file when asked for one', () => {
    const sink = rotatingFileSink(path, 10, 1);
    for (let n = 1; n <= 5; n++) sink.write('info', line(n));
    sink.close();
    expect(readdirSync(dir).sort()).toEqual(['memd.log', 'memd.log.1']);
    expect(linesOf(`${path}.1`)).toEqual([4]);
    expect(linesOf(path)).toEqual([5]);
  });

  it('counts what the file held when it was opened', () => {
    writeFileSync(path, line(0).repeat(2));
    const sink = rotatingFileSink(path, 25, 2);
    sink.write('info', line(1));
    sink.close();
    expect(linesOf(`${path}.1`)).toEqual([0, 0]);
    expect(linesOf(path)).toEqual([1]);
  });

  it('writes a line longer than maxBytes rather than dropping it or rotating an empty file', () => {
    const sink = rotatingFileSink(path, 5, 2);
    sink.write('info', line(1));
    sink.close();
    expect(linesOf(path)).toEqual([1]);
    expect(existsSync(`${path}.1`)).toBe(false);
  });

  it('counts bytes, not characters', () => {
    const sink = rotatingFileSink(path, 12, 2);
    // 4 three-byte characters and a newline: 13 bytes, 5 characters.
    sink.write('info', '€€€€\n');
    sink.write('info', 'a\n');
    sink.close();
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('€€€€\n');
    expect(readFileSync(path, 'utf8')).toBe('a\n');
  });

  it('scrubs the lines naming a session from the file and its rotations, 0600, and goes on appending', () => {
    const sink = rotatingFileSink(path, 20, 3);
    // Lines 3, 6, 9 name the session.
    for (let n = 1; n <= 9; n++) sink.write('info', n % 3 === 0 ? `${String(n).padStart(3, '0')}secret\n` : line(n));
    const before = readdirSync(dir).sort();
    expect(sink.scrub?.('secret')).toBe(3);
    sink.write('info', line(10));
    sink.close();
    expect(readdirSync(dir).sort()).toEqual(before);
    const all = before.map((name) => readFileSync(join(dir, name), 'utf8')).join('');
    expect(all).not.toContain('secret');
    expect(linesOf(path)).toContain(10);
    for (const name of before) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
  });

  it('leaves a file that does not name the session as it was', () => {
    const sink = rotatingFileSink(path, 1_000, 2);
    sink.write('info', line(1));
    const mtime = statSync(path).mtimeMs;
    expect(createLogger(sink, 'info').scrub('absent')).toBe(0);
    sink.close();
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(linesOf(path)).toEqual([1]);
  });
});
