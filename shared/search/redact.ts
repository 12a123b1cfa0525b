/**
 * Secrets of well-known shapes, redacted before a text is indexed (issue 17): the index must not
 * become a second place where a pasted key can be found. What stays says what was there
 * (`[redacted anthropic key]`), so a search for "api key" still finds the line. Pure.
 */

interface SecretShape {
  name: string;
  pattern: RegExp;
}

/** Longest first where shapes overlap (a private key block before a bare token). */
const SHAPES: readonly SecretShape[] = [
  { name: 'private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g },
  { name: 'anthropic key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'aws key', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: 'github token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { name: 'slack token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: 'google key', pattern: /\bAIza[A-Za-z0-9_-]{35}\b/g },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  { name: 'bearer token', pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/-]{20,}=*/gi },
  // key=value and key: value assignments of credentials, quoted or not; the name stays.
  {
    name: 'secret',
    // A value that is a call or an expression (`apiKey = getKey()`) is code, not a secret; one
    // already redacted by a shape above (`[redacted …]`) is left as it is.
    pattern: /(?<![A-Za-z0-9])((?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)["']?\s*[:=]\s*)(["']?)[^\s"',;()[\]]{4,}\2(?=[\s"',;]|$)/gi,
  },
  // A URL with a password in it: scheme://user:password@host.
  { name: 'url password', pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]{3,}(@)/gi },
];

/**
 * Something every shape above contains: most texts have none, and are not run through ten patterns.
 * The words' cases are spelled out: V8 runs this alternation with the `i` flag at half the speed
 * (it is a fifth of the search index's cost in the parse worker).
 */
const MAYBE_SECRET =
  /sk-|AKIA|ASIA|gh[pousr]_|github_pat_|xox|AIza|eyJ|:\/\/|PRIVATE KEY|[Bb][Ee][Aa][Rr][Ee][Rr]|[Pp][Aa][Ss][Ss]|[Pp][Ww][Dd]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]/;

export function redactSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const { name, pattern } of SHAPES) {
    out = out.replace(pattern, (...match: unknown[]) => {
      // Kept prefixes (the `password=` part, `Bearer `, the user of a URL) are the first group.
      const groups = match.slice(1, -2).filter((group): group is string => typeof group === 'string');
      const keep = name === 'secret' || name === 'bearer token' || name === 'url password' ? (groups[0] ?? '') : '';
      const tail = name === 'url password' ? (groups[1] ?? '') : '';
      return `${keep}[redacted ${name}]${tail}`;
    });
  }
  return out;
}
