/**
 * The files a Bash command read, wrote or removed (issue 32 item 1): `cat f`, `head/tail/less f`,
 * `grep … f`, `sed -i … f`, redirections (`> f`, `>> f`, `< f`), `tee f`, `rm f`, `mv a b`,
 * `cp a b`, `git diff/add/checkout/restore/rm/mv <paths>`. A small, bounded and conservative
 * reading of the command string: quotes, escapes, heredoc bodies and `&&`/`||`/`;`/`|` chains are
 * understood; anything it cannot read for sure (a `$` expansion, a glob, a subshell, a loop, a
 * flag's argument, a URL) names no file. A missed file costs recall; an invented one, precision,
 * which matters more. Pure.
 */
import { posix } from 'node:path';

export type BashFileAction = 'read' | 'edited' | 'written' | 'deleted';

export interface BashFile {
  /** As the command wrote it, made absolute against cwd (and a leading `cd`) when those are known. */
  path: string;
  action: BashFileAction;
}

/** Longer commands are scripts, not the one-liners this reads: they name no file. */
export const MAX_COMMAND_CHARS = 10_000;
/** A word that is a path for sure: no expansion, glob, brace, home or variable left in it. */
const DYNAMIC = /[$*?[\]{}~`]/;
/** A path whose last segment has an extension: where a word may also be a revision or a directory, only these count. */
const FILE_LIKE = /(?:^|\/)[\w@+-][\w.@+-]*\.[A-Za-z0-9]\w{0,9}$/;
/** Control words: a loop or a condition runs its commands on values the string does not hold. */
const COMPOUND = new Set(['for', 'while', 'until', 'if', 'case', 'function', 'select', 'do', 'then']);
/** Prefixes that run the command that follows them unchanged. */
const PREFIXES = new Set(['sudo', 'command', 'time', 'nohup', 'exec']);
/** Not `diff`: it compares directories as well, and exits 1 on any difference. */
const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'wc', 'nl', 'bat', 'cmp', 'md5sum', 'sha256sum']);
/** Options of the readers and of grep and sed that take the next word as their value. */
const VALUE_FLAGS: Record<string, ReadonlySet<string>> = {
  head: new Set(['-n', '-c']),
  tail: new Set(['-n', '-c']),
  grep: new Set(['-e', '-f', '-m', '-A', '-B', '-C', '-d', '-D']),
  sed: new Set(['-e', '-f', '-l']),
};
const GREPS = new Set(['grep', 'egrep', 'fgrep']);

type Token = { kind: 'word'; text: string; dynamic: boolean } | { kind: 'op'; text: string };

/** The command's words and operators; null when it holds what this reading does not follow. */
export function tokenize(command: string): Token[] | null {
  const tokens: Token[] = [];
  const heredocs: { delimiter: string }[] = [];
  let i = 0;
  let word = '';
  let dynamic = false;
  let inWord = false;
  const endWord = () => {
    if (inWord) tokens.push({ kind: 'word', text: word, dynamic });
    word = '';
    dynamic = false;
    inWord = false;
  };
  while (i < command.length) {
    const char = command[i] as string;
    if (char === "'") {
      const end = command.indexOf("'", i + 1);
      if (end === -1) return null;
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (char === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        const inner = command[j] as string;
        if (inner === '$' || inner === '`') dynamic = true;
        if (inner === '\\' && j + 1 < command.length) j++;
        word += command[j];
      }
      if (j >= command.length) return null;
      inWord = true;
      i = j + 1;
      continue;
    }
    if (char === '\\') {
      if (command[i + 1] === '\n') {
        i += 2;
        continue;
      }
      word += command[i + 1] ?? '';
      inWord = true;
      i += 2;
      continue;
    }
    if (char === '`' || char === '(' || char === ')') return null;
    if (char === '\n') {
      endWord();
      tokens.push({ kind: 'op', text: ';' });
      i++;
      // A heredoc's body is data, not commands: skip it to its delimiter line.
      for (const heredoc of heredocs.splice(0)) {
        while (i < command.length) {
          const lineEnd = command.indexOf('\n', i);
          const line = command.slice(i, lineEnd === -1 ? command.length : lineEnd);
          i = lineEnd === -1 ? command.length : lineEnd + 1;
          if (line.replace(/^\t+/, '') === heredoc.delimiter) break;
        }
      }
      continue;
    }
    if (char === ' ' || char === '\t') {
      endWord();
      i++;
      continue;
    }
    if (char === '<' && command[i + 1] === '<') {
      endWord();
      // `<<<` is a here-string: its word is data.
      if (command[i + 2] === '<') {
        tokens.push({ kind: 'op', text: '<<<' });
        i += 3;
        continue;
      }
      i += command[i + 2] === '-' ? 3 : 2;
      while (command[i] === ' ') i++;
      const found = /^(['"]?)([\w.-]+)\1/.exec(command.slice(i));
      if (found === null) return null;
      heredocs.push({ delimiter: found[2] as string });
      i += found[0].length;
      continue;
    }
    const operator = /^(?:&&|\|\||;;|[0-9]?>>|[0-9]?>&[0-9-]|&>>?|[0-9]?>\||[0-9]?>|<|\||;|&)/.exec(command.slice(i));
    // A digit before `>` is a file descriptor only at the start of a word.
    if (operator !== null && !(inWord && /^[0-9]/.test(operator[0]))) {
      endWord();
      tokens.push({ kind: 'op', text: operator[0] });
      i += operator[0].length;
      continue;
    }
    if (char === '$' || DYNAMIC.test(char)) dynamic = true;
    word += char;
    inWord = true;
    i++;
  }
  endWord();
  return heredocs.length > 0 ? null : tokens;
}

/** A word that names a path for sure. */
const isPath = (token: Token | undefined): token is Token & { kind: 'word' } =>
  token?.kind === 'word' &&
  !token.dynamic &&
  token.text !== '' &&
  !token.text.startsWith('-') &&
  // `less +G`, `tail -n +5`: a command of the reader, not a file.
  !token.text.startsWith('+') &&
  !DYNAMIC.test(token.text) &&
  !token.text.includes('://') &&
  !token.text.startsWith('/dev/') &&
  !token.text.startsWith('/proc/');

/** The words that are not options, an option's value skipped; `--` ends the options. */
function operands(words: readonly string[], valueFlags: ReadonlySet<string>): { operands: string[]; flags: string[] } {
  const found: string[] = [];
  const flags: string[] = [];
  let options = true;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (options && word === '--') {
      options = false;
      continue;
    }
    if (options && word.startsWith('-') && word !== '-') {
      flags.push(word);
      if (valueFlags.has(word)) index++;
      continue;
    }
    found.push(word);
  }
  return { operands: found, flags };
}

/** What one simple command does to files, its words given without its redirections. */
function commandFiles(words: readonly string[]): BashFile[] {
  const [name = '', ...args] = words;
  const all = (paths: readonly string[], action: BashFileAction) => paths.map((path) => ({ path, action }));
  const parsed = operands(args, VALUE_FLAGS[name] ?? new Set());
  if (READERS.has(name)) return all(parsed.operands, 'read');
  if (GREPS.has(name)) {
    // Recursive: the operands are directories; a pattern comes first unless -e or -f gave it.
    if (parsed.flags.some((flag) => /^-[a-zA-Z]*[rR]/.test(flag) || flag.startsWith('--recursive'))) return [];
    const patternGiven = parsed.flags.some((flag) => flag === '-e' || flag === '-f');
    return all(parsed.operands.slice(patternGiven ? 0 : 1), 'read');
  }
  if (name === 'sed') {
    const inPlace = parsed.flags.some((flag) => /^-[a-zA-Z]*i/.test(flag) || flag.startsWith('--in-place'));
    const scriptGiven = parsed.flags.some((flag) => flag === '-e' || flag === '-f');
    return all(parsed.operands.slice(scriptGiven ? 0 : 1), inPlace ? 'edited' : 'read');
  }
  if (name === 'tee') return all(parsed.operands, parsed.flags.includes('-a') ? 'edited' : 'written');
  if (name === 'unlink') return all(parsed.operands, 'deleted');
  if (name === 'rm') {
    // Recursive: its operands are directories (a build output, node_modules), not files of the session.
    const recursive = parsed.flags.some((flag) => /^-[a-zA-Z]*[rR]/.test(flag) || flag === '--recursive');
    return recursive ? [] : all(parsed.operands, 'deleted');
  }
  if (name === 'touch') return [];
  if (name === 'mv' || name === 'cp') return moveOrCopy(name, parsed);
  if (name === 'git') return gitFiles(args);
  return [];
}

/** `mv a b`, `cp a b`: two operands, the target a file name (a directory target is not followed). */
function moveOrCopy(name: string, parsed: { operands: string[]; flags: string[] }): BashFile[] {
  if (parsed.operands.length !== 2 || parsed.flags.some((flag) => /^-[a-zA-Z]*t|^--target/.test(flag))) return [];
  const [from, to] = parsed.operands as [string, string];
  if (!FILE_LIKE.test(from) || !FILE_LIKE.test(to)) return [];
  return [
    { path: from, action: name === 'mv' ? 'deleted' : 'read' },
    { path: to, action: 'written' },
  ];
}

/**
 * git's subcommands that name paths: words shaped like a file (never a revision), after `--` or
 * not; a directory (`git checkout -- .`, `git diff -- src`) is no file fact.
 */
function gitFiles(args: readonly string[]): BashFile[] {
  // `git -C dir` and `-c key=value` move or configure git: the paths' base is then not known.
  if (args[0]?.startsWith('-')) return [];
  const [sub = '', ...rest] = args;
  const dash = rest.indexOf('--');
  const named = dash === -1 ? rest.filter((word) => !word.startsWith('-')) : rest.slice(dash + 1);
  const files = named.filter((word) => FILE_LIKE.test(word) && !/\.\.|[~^@:]/.test(word));
  const all = (action: BashFileAction) => files.map((path) => ({ path, action }));
  if (sub === 'diff' || sub === 'add' || sub === 'show' || sub === 'blame' || sub === 'log') return all('read');
  // Without `--`, checkout's words may be branches; --staged and --cached leave the working tree alone.
  if (sub === 'checkout') return dash === -1 ? [] : all('edited');
  if (sub === 'restore') return rest.includes('--staged') && !rest.includes('--worktree') ? [] : all('edited');
  if (sub === 'rm') return rest.includes('--cached') ? [] : all('deleted');
  if (sub === 'mv') {
    const moved = rest.filter((word) => !word.startsWith('-'));
    return moveOrCopy('mv', { operands: moved, flags: [] });
  }
  return [];
}

const absolute = (path: string, base: string | null) =>
  path.startsWith('/') ? posix.normalize(path) : base === null ? posix.normalize(path) : posix.join(base, path);

/**
 * The files `command` read, wrote or removed, in order, each path made absolute against `cwd` (the
 * directory it ran in) and the `cd`s before it; relative when cwd is not known.
 */
export function bashFiles(command: string, cwd: string | null): BashFile[] {
  if (command.length > MAX_COMMAND_CHARS) return [];
  const tokens = tokenize(command);
  if (tokens === null) return [];
  const files: BashFile[] = [];
  let base = cwd;
  // After a `cd` this reading cannot follow, relative paths name no file it knows.
  let baseKnown = true;
  let words: Token[] = [];
  const add = (path: string, action: BashFileAction) => {
    if (!path.startsWith('/') && !baseKnown) return;
    files.push({ path: absolute(path, base), action });
  };
  const flush = (): boolean => {
    const plain = words.filter((token) => token.kind === 'word');
    words = [];
    let start = 0;
    while (plain[start] !== undefined && /^[A-Za-z_]\w*=/.test(plain[start]?.text ?? '')) start++;
    while (plain[start] !== undefined && PREFIXES.has(plain[start]?.text ?? '')) start++;
    const command = plain.slice(start);
    const name = command[0];
    if (name === undefined) return true;
    if (COMPOUND.has(name.text) || name.dynamic) return false;
    if (name.text === 'cd') {
      const target = command[1];
      const followed = command.length === 2 && isPath(target) && (baseKnown || target.text.startsWith('/'));
      if (followed) base = absolute(target.text, base);
      baseKnown = followed;
      return true;
    }
    // Every operand the command reads must be a plain word, or it is not read at all.
    const texts = command.map((token) => token.text);
    for (const file of commandFiles(texts)) {
      const token = command.find((candidate) => candidate.text === file.path);
      if (isPath(token)) add(file.path, file.action);
    }
    return true;
  };
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (token.kind === 'word') {
      words.push(token);
      continue;
    }
    if (/^(?:[0-9]?>>|&>>)$/.test(token.text) || /^(?:[0-9]?>\|?|&>)$/.test(token.text) || token.text === '<') {
      const target = tokens[index + 1];
      index++;
      if (!isPath(target)) continue;
      add(target.text, token.text === '<' ? 'read' : token.text.includes('>>') ? 'edited' : 'written');
      continue;
    }
    if (token.text === '<<<') {
      index++;
      continue;
    }
    if (/^[0-9]?>&/.test(token.text)) continue;
    if (!flush()) return files;
  }
  flush();
  return files;
}
