/** Terminal output for memctl: colour only on a TTY and never with NO_COLOR (no-color.org). */

export interface Output {
  out(text: string): void;
  err(text: string): void;
  bold(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

export function createOutput(env: NodeJS.ProcessEnv = process.env): Output {
  const color =
    process.stdout.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb';
  const paint = (code: string) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
    bold: paint('1'),
    green: paint('32'),
    red: paint('31'),
    yellow: paint('33'),
    dim: paint('2'),
  };
}

/** An Output that paints nothing and prints where told (nowhere by default): renderers drawn into a document or a test. */
export function plainOutput(print: { out?: (text: string) => void; err?: (text: string) => void } = {}): Output {
  const same = (text: string) => text;
  return {
    out: print.out ?? (() => {}),
    err: print.err ?? (() => {}),
    bold: same,
    green: same,
    red: same,
    yellow: same,
    dim: same,
  };
}

export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const parts: string[] = [];
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days > 0) parts.push(`${days}d`);
  if (hours > 0) parts.push(`${hours}h`);
  if (minutes > 0 && days === 0) parts.push(`${minutes}m`);
  if (days === 0 && hours === 0) parts.push(`${seconds % 60}s`);
  return parts.join(' ');
}

/** `1 session`, `2 sessions`. */
export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
