/**
 * Whether a `.gitignore` already ignores the handoff file, and the same file with a line that does
 * (DESIGN.md §2: the handoff is added to `<cwd>/.gitignore` once). Git's rules for one path, as in
 * gitignore(5): comments, negation, anchoring, directory-only patterns, `*`, `?`, `[...]`, `**`;
 * a file under an ignored directory stays ignored whatever later lines say. Pure.
 */

/** The handoff file, relative to cwd (DESIGN.md §2). */
export const HANDOFF_RELATIVE_PATH = 'docs/handoff-context.md';

interface Pattern {
  negated: boolean;
  dirOnly: boolean;
  /** Matched against the whole path (a slash before the end), else against the last name. */
  anchored: boolean;
  regex: RegExp;
}

function escapeRegex(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

/** A glob as a regex over a slash-separated path. */
function globRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[++i] as string);
    } else if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      out += '/.*';
      i += 2;
    } else if (char === '*') {
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[' && glob.indexOf(']', i + 2) !== -1) {
      const end = glob.indexOf(']', i + 2);
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = end;
    } else {
      out += escapeRegex(char);
    }
  }
  return new RegExp(`^${out}$`);
}

function parsePattern(line: string): Pattern | null {
  // Trailing spaces are dropped unless escaped; blank lines and comments match nothing.
  let text = line.replace(/\r$/, '').replace(/(?<!\\) +$/, '');
  if (text === '' || text.startsWith('#')) return null;
  const negated = text.startsWith('!');
  if (negated) text = text.slice(1);
  const dirOnly = text.endsWith('/');
  if (dirOnly) text = text.replace(/\/+$/, '');
  if (text === '') return null;
  const anchored = text.includes('/');
  return { negated, dirOnly, anchored, regex: globRegex(text.replace(/^\//, '')) };
}

/** Whether `gitignore` (the text of a .gitignore in cwd) ignores `path` (relative to cwd, a file). */
export function ignoresPath(gitignore: string, path: string = HANDOFF_RELATIVE_PATH): boolean {
  const patterns = gitignore
    .split('\n')
    .map(parsePattern)
    .filter((pattern): pattern is Pattern => pattern !== null);
  const parts = path.split('/').filter((part) => part !== '');
  for (let depth = 1; depth <= parts.length; depth++) {
    const isDir = depth < parts.length;
    const prefix = parts.slice(0, depth).join('/');
    const name = parts[depth - 1] as string;
    let ignored = false;
    for (const pattern of patterns) {
      if (pattern.dirOnly && !isDir) continue;
      if (pattern.regex.test(pattern.anchored ? prefix : name)) ignored = !pattern.negated;
    }
    // Git does not look inside an ignored directory: nothing below it can be re-included.
    if (ignored) return true;
  }
  return false;
}

/** The .gitignore text with a line ignoring `path` appended; null when it is ignored already. */
export function withIgnoredPath(gitignore: string | null, path: string = HANDOFF_RELATIVE_PATH): string | null {
  const text = gitignore ?? '';
  if (ignoresPath(text, path)) return null;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${separator}${path}\n`;
}
