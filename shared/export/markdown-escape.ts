/**
 * Transcript text made safe to write into markdown (issue 27, item 11). Prompts and replies stay
 * markdown (lists, emphasis, fenced code render as they would in Claude Code), but nothing in them
 * reaches a renderer as HTML: every `<` outside a fenced code block is written `&lt;`, so no tag,
 * comment or autolink can open, and `</details>` cannot close memd's folds. Inline code holding
 * `<` or `&` is rewritten as memd's own `<code>` with its text escaped (a backtick span would show
 * `&lt;` as it is); a fence the text leaves open is closed where the text ends, so that it cannot
 * swallow the rest of the document. Only a fence CommonMark would open is left as it is: where a
 * renderer could see prose, this sees prose and escapes it (never the other way round). Pure.
 */

/** A fence CommonMark opens: up to 3 spaces, then 3 or more backticks or tildes, then the info string. */
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** A line that closes a fence: up to 3 spaces, a run of the fence's character, then only spaces or tabs. */
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
/** ASCII punctuation that markdown reads inside memd's `<code>` (emphasis, links, escapes): escaped with a backslash. */
const MARKDOWN_PUNCTUATION = /[\\`*_[\]~!#|]/g;

interface Fence {
  char: string;
  length: number;
}

/** `<` as an entity: in prose it shows as `<` and opens nothing. */
const escapeAngles = (text: string) => text.replace(/</g, '&lt;');

/** Text for inside memd's `<code>`: HTML escaped, markdown's punctuation escaped. */
function codeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(MARKDOWN_PUNCTUATION, (char) => `\\${char}`);
}

/** A code span's text as CommonMark strips it: one space off each end when both have one and it is not all spaces. */
function spanText(inner: string): string {
  return inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== ''
    ? inner.slice(1, -1)
    : inner;
}

/**
 * One line of prose: code spans that open and close on it and hold `<` or `&` become `<code>`;
 * every other `<` becomes `&lt;`. A span this misses (one over several lines) has its `<` shown
 * as `&lt;`; one it finds that a renderer would not is shown as code: neither lets HTML through.
 */
export function escapeProseLine(line: string): string {
  let out = '';
  let at = 0;
  while (at < line.length) {
    const char = line[at] as string;
    if (char === '\\' && at + 1 < line.length) {
      // A backslash escape: `\`` is a backtick that opens no span.
      out += escapeAngles(line.slice(at, at + 2));
      at += 2;
      continue;
    }
    if (char !== '`') {
      out += char === '<' ? '&lt;' : char;
      at += 1;
      continue;
    }
    let end = at;
    while (line[end] === '`') end += 1;
    const ticks = line.slice(at, end);
    const close = closingRun(line, end, ticks.length);
    if (close === -1) {
      out += ticks;
      at = end;
      continue;
    }
    const inner = line.slice(end, close);
    out += /[<&]/.test(inner) ? `<code>${codeHtml(spanText(inner))}</code>` : `${ticks}${inner}${ticks}`;
    at = close + ticks.length;
  }
  return out;
}

/** Where the next run of exactly `length` backticks starts at or after `from`, or -1. */
function closingRun(line: string, from: number, length: number): number {
  let at = line.indexOf('`', from);
  while (at !== -1) {
    let end = at;
    while (line[end] === '`') end += 1;
    if (end - at === length) return at;
    at = line.indexOf('`', end);
  }
  return -1;
}

function opensFence(line: string): Fence | null {
  const open = FENCE_OPEN.exec(line);
  if (open === null) return null;
  const run = open[2] as string;
  // A backtick fence's info string holds no backtick (else the line is a code span).
  if (run.startsWith('`') && (open[3] as string).includes('`')) return null;
  return { char: run.charAt(0), length: run.length };
}

function closesFence(line: string, fence: Fence): boolean {
  const run = FENCE_CLOSE.exec(line)?.[1] ?? '';
  return run.startsWith(fence.char) && run.length >= fence.length;
}

/**
 * Prose (a prompt, a reply) for markdown: fenced code as it is, the rest with no HTML, and a fence
 * left open closed at the end. Line endings become `\n` first: CommonMark ends lines at a lone
 * `\r` too, and a fence closed after one must be seen closed here as well.
 */
export function safeProse(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fence: Fence | null = null;
  for (const line of lines) {
    if (fence !== null) {
      out.push(line);
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    fence = opensFence(line);
    // The info string is shown by no renderer, but escaped all the same.
    out.push(
      fence === null
        ? escapeProseLine(line)
        : line.replace(/^(\s*[`~]+)(.*)$/, (_, run: string, info: string) => `${run}${escapeAngles(info)}`),
    );
  }
  if (fence !== null) out.push(fence.char.repeat(fence.length));
  return out.join('\n');
}
