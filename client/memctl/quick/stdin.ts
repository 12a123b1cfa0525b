/** A hook's or status line's stdin: one small JSON object, read with a deadline and a size cap. */

/** Claude Code writes the object and closes stdin at once; a writer that never closes is not waited for. */
export const STDIN_DEADLINE_MS = 1_000;
/** Far above any hook input; more is not what Claude Code sends. */
const MAX_STDIN_BYTES = 1024 * 1024;

/**
 * Stdin is read once per process: a quick path that reads it and then hands the run over to the
 * full command (quick/session-start.ts) gives it the same object.
 */
let read: Promise<Record<string, unknown> | null> | undefined;

/** The parsed object, or null when stdin held no JSON object in time. */
export function readJsonObject(deadlineMs = STDIN_DEADLINE_MS): Promise<Record<string, unknown> | null> {
  read ??= readOnce(deadlineMs);
  return read;
}

function readOnce(deadlineMs: number): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      process.stdin.removeAllListeners('data');
      process.stdin.pause();
      process.stdin.unref?.();
      let value: unknown;
      try {
        value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return resolve(null);
      }
      resolve(
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : null,
      );
    };
    const timer = setTimeout(done, deadlineMs);
    process.stdin.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_STDIN_BYTES) return done();
      chunks.push(chunk);
    });
    process.stdin.once('end', done);
    process.stdin.once('error', done);
  });
}

/** A non-empty string field, else null. */
export function text(record: Record<string, unknown> | null | undefined, key: string): string | null {
  const value = record?.[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A finite number field, else null. */
export function number(record: Record<string, unknown> | null | undefined, key: string): number | null {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A nested object field, else null. */
export function object(
  record: Record<string, unknown> | null | undefined,
  key: string,
): Record<string, unknown> | null {
  const value = record?.[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
