/**
 * The search query language (FTS5's, as users type it) parsed by memd itself. The index keeps no
 * token positions (`detail=none`, a third of the size: daemon/store/migrations.ts, version 13), so
 * FTS5 cannot match a phrase or NEAR there: `fts5Query` (query-fts5.ts) gives FTS5 a query that
 * finds every row the user's query can match (each phrase as its words ANDed), and `matches`
 * (query-match.ts) decides on the text of each such row, tokenized here as FTS5's unicode61
 * tokenizer does. This file is the language itself: its tree, its limits, the lexer and the parser. Pure.
 *
 * Syntax: words, "quoted phrases" (`""` is a quote inside one), `prefix*`, `^initial`, `+` joining
 * phrases, NEAR(a b, N), AND, OR, NOT (in that order of precedence: NOT binds tightest), and
 * parentheses. A word with punctuation in it (`totals.js`, `--force`, `src/app.ts`) is the phrase
 * of its words, as a user means it.
 */

export interface Phrase {
  type: 'phrase';
  tokens: string[];
  /** The last token matches as a prefix. */
  prefix: boolean;
  /** The phrase must start the text (`^`). */
  initial: boolean;
}

export type QueryNode =
  | Phrase
  | { type: 'near'; phrases: Phrase[]; distance: number }
  | { type: 'and' | 'or' | 'not'; left: QueryNode; right: QueryNode };

export class QuerySyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

/** FTS5's default NEAR distance. */
const DEFAULT_NEAR = 10;

/**
 * What one query may ask of the index (issue 27): each word is one of FTS5's iterators over its
 * rows, a prefix up to 64 of them (or a whole prefix's rows built at once), and a NEAR's phrases are
 * ANDed there and checked on every candidate's text. `NEAR(a* a* … ×320, 999)` fits the 1,000
 * characters of a query and held the search for a minute at 28 MB of index; a query a person
 * types stays well inside these (a pasted error line is ~20 words).
 */
export const QUERY_LIMITS = {
  /** Words in the whole query, phrases' words included. */
  words: 64,
  /** Words ending in `*`. */
  prefixes: 8,
  /** Phrases inside one NEAR( ). */
  nearPhrases: 8,
  /** Alternatives joined by OR, in the whole query. */
  orBranches: 32,
} as const;

export type QueryLimit = keyof typeof QUERY_LIMITS;

/** The query asks more than QUERY_LIMITS allows: names the limit and its maximum. */
export class QueryLimitError extends Error {
  constructor(
    readonly limit: QueryLimit,
    readonly max: number,
  ) {
    const what = {
      words: 'words',
      prefixes: 'prefix words (word*)',
      nearPhrases: 'phrases in one NEAR',
      orBranches: 'OR alternatives',
    }[limit];
    super(`the query has more than ${max} ${what}`);
  }
}

/** Throws QueryLimitError when `count` passes the limit: checked as the query is parsed, so that a hostile one costs no more than its first few phrases. */
function within(limit: QueryLimit, count: number): void {
  if (count > QUERY_LIMITS[limit]) throw new QueryLimitError(limit, QUERY_LIMITS[limit]);
}

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
const MARKS = /\p{M}/gu;
const NOT_ASCII = /[^\p{ASCII}]/u;

/**
 * The tokens of a text as `unicode61 remove_diacritics 2` makes them: runs of letters, numbers and
 * private-use characters, case-folded, diacritics removed (everything else separates, `_` too).
 */
export function tokenize(text: string): string[] {
  // ASCII has no diacritics to fold: normalizing a long text costs more than matching its words.
  const folded = (!NOT_ASCII.test(text) ? text : text.normalize('NFD').replace(MARKS, '')).toLowerCase();
  return folded.match(TOKEN) ?? [];
}

interface Lexeme {
  kind: '(' | ')' | ',' | '+' | 'string' | 'word';
  text: string;
  at: number;
  /** A `*` right after it. */
  star: boolean;
}

function lex(query: string): Lexeme[] {
  const out: Lexeme[] = [];
  let at = 0;
  while (at < query.length) {
    const char = query[at] as string;
    if (/\s/.test(char)) {
      at++;
    } else if (char === '(' || char === ')' || char === ',' || char === '+') {
      out.push({ kind: char, text: char, at, star: false });
      at++;
    } else if (char === '"') {
      let text = '';
      let end = at + 1;
      for (;;) {
        const close = query.indexOf('"', end);
        if (close === -1) throw new QuerySyntaxError('unterminated string', at);
        text += query.slice(end, close);
        if (query[close + 1] !== '"') {
          end = close + 1;
          break;
        }
        text += '"';
        end = close + 2;
      }
      const star = query[end] === '*';
      out.push({ kind: 'string', text, at, star });
      at = end + (star ? 1 : 0);
    } else {
      let end = at;
      while (end < query.length && !/[\s"(),+]/.test(query[end] as string)) end++;
      const raw = query.slice(at, end);
      const star = raw.length > 1 && raw.endsWith('*');
      out.push({ kind: 'word', text: star ? raw.slice(0, -1) : raw, at, star });
      at = end;
    }
  }
  return out;
}

const OPERATORS = new Set(['AND', 'OR', 'NOT']);

/**
 * The query as a tree; QuerySyntaxError names the position where it breaks, QueryLimitError the
 * limit it passes.
 */
export function parseQuery(query: string): QueryNode {
  const lexemes = lex(query);
  let next = 0;
  let words = 0;
  let prefixes = 0;
  let branches = 1;
  const peek = () => lexemes[next];
  const isOperator = (lexeme: Lexeme | undefined, name: string) =>
    lexeme?.kind === 'word' && lexeme.text === name && !lexeme.star;
  const startsPrimary = (lexeme: Lexeme | undefined) =>
    lexeme !== undefined &&
    (lexeme.kind === '(' || lexeme.kind === 'string' || (lexeme.kind === 'word' && !OPERATORS.has(lexeme.text)));
  const expected = (what: string): never => {
    const lexeme = peek();
    throw new QuerySyntaxError(
      lexeme === undefined ? `${what} expected at the end` : `${what} expected before "${lexeme.text}"`,
      lexeme?.at ?? query.length,
    );
  };

  const phrase = (): Phrase => {
    let initial = false;
    let first = peek();
    if (first?.kind === 'word' && first.text.startsWith('^')) {
      initial = true;
      // `^"a phrase"`: the caret is a word of its own before the string.
      if (first.text === '^' && !first.star && lexemes[next + 1]?.kind === 'string') first = lexemes[++next];
      else first = { ...first, text: first.text.slice(1) };
    }
    if (first === undefined || (first.kind !== 'word' && first.kind !== 'string'))
      return expected('a word or "phrase"');
    next++;
    const tokens = tokenize(first.text);
    let prefix = first.star;
    while (peek()?.kind === '+') {
      next++;
      const part = peek();
      if (part === undefined || (part.kind !== 'word' && part.kind !== 'string'))
        return expected('a word or "phrase" after +');
      next++;
      tokens.push(...tokenize(part.text));
      prefix = part.star;
    }
    within('words', (words += tokens.length));
    if (prefix) within('prefixes', ++prefixes);
    return { type: 'phrase', tokens, prefix, initial };
  };

  const near = (): QueryNode => {
    next++;
    if (peek()?.kind !== '(') return expected('( after NEAR');
    next++;
    const phrases: Phrase[] = [];
    while (peek() !== undefined && peek()?.kind !== ')' && peek()?.kind !== ',') {
      phrases.push(phrase());
      within('nearPhrases', phrases.length);
    }
    let distance = DEFAULT_NEAR;
    if (peek()?.kind === ',') {
      next++;
      const value = peek();
      if (value?.kind !== 'word' || !/^\d{1,6}$/.test(value.text))
        return expected('a distance after the comma in NEAR');
      distance = Number(value.text);
      next++;
    }
    if (peek()?.kind !== ')') return expected(') closing NEAR');
    next++;
    if (phrases.length === 0) return expected('a phrase in NEAR');
    return { type: 'near', phrases, distance };
  };

  const primary = (): QueryNode => {
    const lexeme = peek();
    if (lexeme?.kind === '(') {
      next++;
      const inner = or();
      if (peek()?.kind !== ')') return expected(')');
      next++;
      return inner;
    }
    if (lexeme?.kind === 'word' && lexeme.text === 'NEAR' && lexemes[next + 1]?.kind === '(') return near();
    if (!startsPrimary(lexeme)) return expected('a word or "phrase"');
    return phrase();
  };
  const not = (): QueryNode => {
    let left = primary();
    while (isOperator(peek(), 'NOT')) {
      next++;
      left = { type: 'not', left, right: primary() };
    }
    return left;
  };
  const and = (): QueryNode => {
    let left = not();
    for (;;) {
      if (isOperator(peek(), 'AND')) next++;
      else if (!startsPrimary(peek())) return left;
      left = { type: 'and', left, right: not() };
    }
  };
  const or = (): QueryNode => {
    let left = and();
    while (isOperator(peek(), 'OR')) {
      next++;
      within('orBranches', ++branches);
      left = { type: 'or', left, right: and() };
    }
    return left;
  };

  if (lexemes.length === 0) throw new QuerySyntaxError('the query is empty', 0);
  const tree = or();
  if (next < lexemes.length) expected('an operator or the end');
  if (!hasWords(tree)) throw new QuerySyntaxError('the query has no words to search for', 0);
  return tree;
}

function hasWords(node: QueryNode): boolean {
  if (node.type === 'phrase') return node.tokens.length > 0;
  if (node.type === 'near') return node.phrases.some(hasWords);
  if (node.type === 'not') return hasWords(node.left);
  return hasWords(node.left) || hasWords(node.right);
}
