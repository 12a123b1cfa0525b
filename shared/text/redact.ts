/**
 * Secrets of well-known shapes, redacted from every text that leaves memd's state dir (issue 27):
 * the search index (issue 17), titles, MCP answers, handoffs, SessionStart context, search.context
 * and the markdown and HTML exports. What stays says what was there (`[redacted anthropic key]`),
 * and the name of an assignment stays (`DB_PASSWORD=[redacted secret]`), so a search for "api key"
 * still finds the line while a search for the key itself finds nothing. Pure.
 */

/**
 * Bumped whenever the shapes widen: the search index was built from texts redacted by the older
 * rules, so a database that holds texts of an older version is indexed again (store/migrations.ts).
 */
export const REDACTION_VERSION = 2;

/** Every redacted value becomes this, with the shape's name: `[redacted github token]`. */
export const REDACTED_PREFIX = '[redacted ';

interface SecretShape {
  name: string;
  /**
   * Named groups: `keep` is kept before the marker (the name of an assignment, `Bearer `, a URL's
   * user), `tail` after it (a URL's `@`), `q` is a quote kept around it; `value` is what a shape
   * with a judgement (`accept`) judges.
   */
  pattern: RegExp;
  /**
   * Something the shape's matches all contain, looked for before the pattern is run: a literal
   * found by a fast scan, where the pattern's case-insensitive alternations cost ten times more.
   */
  hint: RegExp;
  /** False: the value is code or a reference, not a secret (`apiKey = getKey()`, `$TOKEN`). */
  accept?: (value: string) => boolean;
}

/** Values that are types, literals or references in code and config, never a secret. */
const NOT_SECRETS = new Set([
  'string',
  'str',
  'number',
  'int',
  'integer',
  'boolean',
  'bool',
  'bytes',
  'object',
  'any',
  'unknown',
  'null',
  'none',
  'nil',
  'undefined',
  'true',
  'false',
  'required',
  'optional',
  'redacted',
]);

/**
 * An assignment's value that is code: a call or an index (`getKey()`, `env["X"]`), a dotted path
 * (`process.env.TOKEN`, `config.password`), a reference (`$TOKEN`, `${{ secrets.X }}`, `%PASS%`),
 * a type or literal, a short number (`TOKEN_LIMIT=4096`), or a value already redacted.
 */
function isSecretValue(value: string): boolean {
  if (value.startsWith(REDACTED_PREFIX.trim()) || /^[$%{<]/.test(value)) return false;
  if (NOT_SECRETS.has(value.toLowerCase())) return false;
  if (/^\d{1,9}$/.test(value)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  return !/^[A-Za-z_$][\w$.]*[([]/.test(value);
}

/**
 * A quoted value (any characters but its quote) or a bare one (up to a space, quote, comma or
 * semicolon). Quotes may be escaped (`\"`): the text may be JSON, a tool's input as a report shows it.
 */
const VALUE = String.raw`(?:(?<esc>\\?)(?<q>["'\x60])(?<quoted>[^"'\x60\n\\]{1,500})\k<esc>\k<q>|(?<bare>[^\s"'\x60,;\\]{4,500}))`;
/** Between a name and its value: `=`, `: `, `":"`; never a line break (a YAML key whose value is on the next lines is not one). */
const ASSIGN = String.raw`(?:\\?["'])?[ \t]*[:=][ \t]*`;

/** Most specific first: a private key block before the assignment it sits in, a token's name before `*_TOKEN=`. */
const SHAPES: readonly SecretShape[] = [
  {
    name: 'private key',
    hint: /PRIVATE KEY/,
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { name: 'jwt', hint: /eyJ/, pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g },
  { name: 'anthropic key', hint: /sk-ant-/, pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai key', hint: /sk-/, pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  {
    name: 'stripe key',
    hint: /k_live_|k_test_|whsec_/,
    pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}/g,
  },
  { name: 'aws key', hint: /AKIA|ASIA|ABIA|ACCA/, pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  // The secret half of an AWS key pair is 40 characters of base64 with nothing to tell it by, so it
  // is redacted only near its name: `aws_secret_access_key = …`, `"SecretAccessKey": "…"`, a table.
  {
    name: 'aws secret',
    hint: /[Aa][Cc][Cc][Ee][Ss][Ss]_?[Kk][Ee][Yy]/,
    pattern:
      /(?<keep>\b(?:aws_?)?secret_?access_?key[\s\S]{0,80}?)(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi,
  },
  {
    name: 'github token',
    hint: /gh[pousr]_|github_pat_/,
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g,
  },
  { name: 'slack token', hint: /xox|xapp-/, pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}/g },
  {
    name: 'slack webhook',
    hint: /hooks\.slack\.com/,
    pattern: /(?<keep>\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{10,}/g,
  },
  { name: 'google key', hint: /AIza/, pattern: /\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  {
    name: 'azure key',
    hint: /[Kk][Ee][Yy][ \t]*=|[Ss][Ee][Cc][Rr][Ee][Tt][ \t]*=/,
    pattern: /(?<keep>\b(?:AccountKey|SharedAccessKey|SharedSecret)[ \t]*=[ \t]*)[A-Za-z0-9+/]{20,}={0,2}/gi,
  },
  { name: 'azure signature', hint: /sig=/, pattern: /(?<keep>\bsig=)[A-Za-z0-9%+/_-]{16,}={0,2}/g },
  {
    name: 'authorization',
    hint: /[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz]/,
    pattern:
      /(?<keep>\bAuthorization["']?[ \t]*[:=][ \t]*["']?(?:Bearer|Basic|Token|Bot|Digest)[ \t]+)[A-Za-z0-9._~+/=-]{8,}/gi,
  },
  {
    name: 'bearer token',
    hint: /[Bb][Ee][Aa][Rr][Ee][Rr]/,
    pattern: /(?<keep>\bBearer[ \t]+)[A-Za-z0-9._~+/-]{20,}=*/gi,
  },
  // A URL with a password in it: scheme://user:password@host (the user may be empty: redis://:p@h).
  { name: 'url password', hint: /:\/\//, pattern: /(?<keep>\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?<tail>@)/gi },
  // Assignments of credentials, quoted or not; the name stays. Names glued to a prefix count
  // (`PGPASSWORD`, `MYSQL_PWD`, `SECRET_KEY_BASE`, `db_password`), so the match starts at the word.
  {
    name: 'secret',
    hint: /[Pp][Aa][Ss][Ss]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]|_[Pp][Ww][Dd]/,
    pattern: new RegExp(
      String.raw`(?<keep>(?:password|passwd|passphrase|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|_pwd\b)[A-Za-z0-9_-]*${ASSIGN})${VALUE}`,
      'gi',
    ),
    accept: isSecretValue,
  },
  // Environment variables by convention: any upper-case `*_TOKEN`, `*_KEY`, `*_SECRET`, `*_PASS`.
  {
    name: 'secret',
    hint: /TOKEN|_KEY|_SECRET|_PASS|APIKEY/,
    pattern: new RegExp(
      `(?<keep>(?:(?<![a-z0-9])TOKEN|_TOKEN|_KEY|_SECRET|_PASS|APIKEY)(?:_[A-Z0-9]+)*${ASSIGN})${VALUE}`,
      'g',
    ),
    accept: isSecretValue,
  },
];

/**
 * Something every shape above contains, in two patterns: most texts have none, and are not run
 * through the shapes. The words' cases are spelled out: V8 runs this alternation with the `i` flag
 * at half the speed (it is a fifth of the search index's cost in the parse worker); and one
 * alternation of all of them ran at a third of the speed of these two (some 17 alternatives in,
 * V8 stops scanning ahead for their first characters).
 */
const MAYBE_SECRET =
  /sk-|_live_|_test_|AKIA|ASIA|gh[pousr]_|github_pat_|xox|AIza|eyJ|:\/\/|sig=|PRIVATE KEY|[Bb][Ee][Aa][Rr][Ee][Rr]|[Pp][Aa][Ss][Ss]|[Pp][Ww][Dd]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]/;
const MAYBE_SECRET_TOO = /[Aa]uthoriz|AUTHORIZ|whsec_|ABIA|ACCA|xapp-/;

interface MatchGroups {
  keep?: string;
  tail?: string;
  esc?: string;
  q?: string;
  quoted?: string;
  bare?: string;
}

function redactShape(text: string, { name, hint, pattern, accept }: SecretShape): string {
  if (!hint.test(text)) return text;
  return text.replace(pattern, (...args: unknown[]) => {
    const match = args[0] as string;
    const last = args[args.length - 1];
    const groups: MatchGroups = typeof last === 'object' && last !== null ? (last as MatchGroups) : {};
    const value = groups.quoted ?? groups.bare;
    if (accept !== undefined && value !== undefined && !accept(value)) return match;
    const quote = `${groups.esc ?? ''}${groups.q ?? ''}`;
    return `${groups.keep ?? ''}${quote}${REDACTED_PREFIX}${name}]${quote}${groups.tail ?? ''}`;
  });
}

export function redactSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text) && !MAYBE_SECRET_TOO.test(text)) return text;
  let out = text;
  for (const shape of SHAPES) out = redactShape(out, shape);
  return out;
}

/**
 * Every string in a JSON-like value redacted (object keys are names, not values, and stay): for
 * structured answers (a handoff's facts, search.context's messages, an export's report model).
 * The value's type is kept: strings stay strings, shapes stay shapes.
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item);
  return out as T;
}
