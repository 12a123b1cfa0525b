/** A Logger that records what it is given, for unit tests that check what was logged. */
import type { LogFields, Logger } from '../../daemon/log/logger.js';
import type { LogLevel } from '../../shared/config.js';

export interface LoggedLine {
  level: LogLevel;
  msg: string;
  fields: LogFields | undefined;
}

export interface FakeLogger extends Logger {
  readonly lines: LoggedLine[];
  at(level: LogLevel): LoggedLine[];
}

export function fakeLogger(): FakeLogger {
  const lines: LoggedLine[] = [];
  const record = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    lines.push({ level, msg, fields });
  };
  return {
    lines,
    at: (level) => lines.filter((line) => line.level === level),
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    file: null,
    scrub(needle) {
      const before = lines.length;
      lines.splice(0, lines.length, ...lines.filter((line) => !JSON.stringify(line).includes(needle)));
      return before - lines.length;
    },
    close() {},
  };
}
