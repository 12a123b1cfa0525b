/**
 * Structured log lines with a level. Under systemd or `--foreground` they go to stderr, where
 * journald reads the `<N>` priority prefix; otherwise to a size-capped, rotated `memd.log`. Lines
 * are JSON objects, except on a terminal, where they are text (`format.ts`).
 */
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { LogLevel } from '../../shared/config.js';
import { formatJson, formatText, type LineFormat, type LogFields } from './format.js';

export type { LogFields } from './format.js';

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Where lines go, for status: a file path, or null for stderr. */
  readonly file: string | null;
  /**
   * `archive.forget`: every line that contains `needle` (a session id) is taken out of the log
   * files memd wrote, each file rewritten atomically; the number of lines removed. Nothing for
   * stderr (journald's store is not memd's to rewrite).
   */
  scrub(needle: string): number;
  close(): void;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** sd-daemon(3) priorities: journald turns the `<N>` prefix into the entry's priority. */
const JOURNAL_PRIORITY: Record<LogLevel, number> = { debug: 7, info: 6, warn: 4, error: 3 };

type Sink = {
  write(level: LogLevel, line: string): void;
  close(): void;
  file: string | null;
  scrub?(needle: string): number;
};

/**
 * Rewrites one log file without the lines containing `needle`, through a temporary file renamed
 * over it (a crash leaves the old file or the new one, never half of each); 0 when it holds none.
 */
export function scrubFile(path: string, needle: string): number {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  if (!text.includes(needle)) return 0;
  const lines = text.split('\n');
  const kept = lines.filter((line) => !line.includes(needle));
  const temporary = `${path}.scrub`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, kept.join('\n'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  return lines.length - kept.length;
}

export function stderrSink(journal: boolean): Sink {
  return {
    file: null,
    write(level, line) {
      process.stderr.write(journal ? `<${JOURNAL_PRIORITY[level]}>${line}` : line);
    },
    close() {},
  };
}

/** Appends synchronously, so the last line before a crash is on disk; rotates past `maxBytes`. */
export function rotatingFileSink(path: string, maxBytes: number, keep: number): Sink {
  let fd = openSync(path, 'a', 0o600);
  let size = fstatSync(fd).size;
  const rotate = () => {
    closeSync(fd);
    rmSync(`${path}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      try {
        renameSync(`${path}.${n}`, `${path}.${n + 1}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    renameSync(path, `${path}.1`);
    fd = openSync(path, 'a', 0o600);
    size = 0;
  };
  return {
    file: path,
    write(_level, line) {
      const bytes = Buffer.byteLength(line);
      if (size > 0 && size + bytes > maxBytes) {
        try {
          rotate();
        } catch {
          // A failed rotation must not stop logging: keep appending to the current file.
        }
      }
      try {
        writeSync(fd, line);
        size += bytes;
      } catch {
        // A full disk drops log lines rather than crashing the daemon.
      }
    },
    scrub(needle) {
      // Synchronous like the appends: no line is written between the read and the rename.
      closeSync(fd);
      let removed = 0;
      try {
        for (let n = keep; n >= 1; n--) removed += scrubFile(`${path}.${n}`, needle);
        removed += scrubFile(path, needle);
      } finally {
        fd = openSync(path, 'a', 0o600);
        size = fstatSync(fd).size;
      }
      return removed;
    },
    close() {
      closeSync(fd);
    },
  };
}

/** `format` is JSON unless a person reads the lines on a terminal (`stderrFormat`). */
export function createLogger(
  sink: Sink,
  level: LogLevel,
  clock: () => Date = () => new Date(),
  format: LineFormat = 'json',
): Logger {
  const threshold = RANK[level];
  const formatLine = format === 'text' ? formatText : formatJson;
  const emit = (lineLevel: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[lineLevel] < threshold) return;
    sink.write(lineLevel, formatLine(lineLevel, msg, fields, clock()));
  };
  return {
    file: sink.file,
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    scrub: (needle) => sink.scrub?.(needle) ?? 0,
    close: () => sink.close(),
  };
}
