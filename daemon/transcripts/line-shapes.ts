/**
 * What a line of tool output or assistant text is, by its shape: an error message, a test
 * verdict, a stack frame, a separator, a line of code, a markdown heading. The key line of a
 * failure is chosen by these shapes, not by where it sits: test runners print the line that
 * matters at the end of hundreds of lines that mention "error" in passing. Pure.
 */

/** How much a line says about what failed; higher ranks win whatever their position. */
export const RANK = {
  /** Frames, separators, code: never the key line while any other line is there. */
  rejected: -1,
  plain: 0,
  /** What a runner prints when what it ran failed: `make: ***`, `npm ERR!`, counts of failures. */
  wrapper: 1,
  /** Mentions failing in passing: `not ok - x`, `--- FAIL: TestX`, `FAIL src/a.test.ts`. */
  mention: 2,
  /** A detail of a failure: pytest's `E` lines, `Expected:`, a compiler's `file:line: message`. */
  detail: 3,
  /** Says what went wrong: `TypeError: …`, `error TS2345: …`, `panicked at`, `… not raised`. */
  message: 4,
  /** A test runner's verdict naming the test and the reason: `FAILED tests/a.py::t - …`. */
  verdict: 5,
} as const;

const EXCEPTION = /^(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?(?::|\s|$)/;
const ERROR_LABEL = /^(?:error|Error|ERROR|fatal|FATAL|Fatal|panic|FAIL|Failed)(?:\[[\w-]+\])?:\s*\S/;
const COMPILER_ERROR = /\berror(?: TS\d+|\[[\w-]+\])?:\s*\S/;
const MESSAGE_WORDS =
  /\bpanicked at\b|\bnot raised\b|\bDID NOT RAISE\b|\bException in thread\b|\bSegmentation fault\b|\bexpected\b.*\b(?:got|but got|received|found)\b/;
const VERDICT = /^(?:FAILED|ERROR)\s+\S+::\S+.*\s-\s+\S/;
const PYTEST_DETAIL = /^E {2,}(\S.*)$/;
const DETAIL =
  /^(?:Expected|Received|Actual|Difference)(?: value)?:|^[\w./\\-]+\.\w+(?::\d+){1,2}: \S|\bassert(?:ion)?\b/i;
const WRAPPER =
  /^make(?:\[\d+\])?: \*\*\*|^npm (?:ERR!|error)|^error: (?:test failed|could not compile|aborting due to|Recipe|script)|^error Command failed|ELIFECYCLE|^exit status \d+$|^Found \d+ errors?\b/i;
const FAILURE_COUNT = /\b\d+ (?:failed|failing|errors?)\b/i;
const MENTION = /error|exception|traceback|fail|fatal|denied|not found|^not ok\b/i;
/** Lines that open a failure and leave its reason to the lines after. */
const TITLE =
  /^Traceback \(most recent call last\):$|^●\s(?!Console$)|\bpanicked at\b.*:$|^(?:FAILED|ERROR)\s+\S+::\S+$|^(?:FAIL|ERROR): \S+ \(.*\)$/;
const TRACEBACK = /^Traceback \(most recent call last\):$/;
const PYTHON_EXCEPTION = /^[A-Za-z_][\w.]*:\s/;
const EXPECTED = /^Expected(?: value)?:/;
const MAX_VERDICTS = 3; // a run's failures, each in one line; past this they are a count the runner prints
const RECEIVED = /^Received(?: value)?:/;

const FRAME =
  /^(?:at\s|File ".*", line \d+|❯\s|→\s|-->\s|#\d+\s+\S|\d+:\s+0x[0-9a-f]+|goroutine \d+ \[|\.\.\. \d+ more\b)/;
/** A place alone: `/repo/a.js:3`, `node:internal/modules/cjs/loader:1080`, Go's `/repo/main.go:8 +0x1d`. */
const LOCATION = /^\(?[\w@./\\:-]+:\d+(?::\d+)?\)?(?:\s+\+0x[0-9a-f]+)?$/;
const NO_WORDS = /^[^\p{L}\p{N}]*$/u;
/** `==== FAILURES ====`, `____ test_y ____`, `---- tests::adds stdout ----`. */
const FRAMED = /^([=_\-*~#+⎯─━])\1{2,}.*\1{3,}$/;
/** Source shown in tracebacks and code frames: pytest's `>` line, a `12 |` gutter. */
const CODE_FRAME = /^>\s|^>?\s*\d+\s*\|/;
const CODE_KEYWORD =
  /^(?:def|class|async|await|return|const|let|var|function|if|elif|else|for|while|try|except|finally|raise|throw|with|fn|pub|impl|func|package|export|interface|struct|enum|switch|case)\b.*[(){}[\];=:]|^(?:import\s+[\w.{}, *]+|from\s+[\w.]+\s+import\b|use\s+[\w:]+;|#include\s)/;
const CODE_CALL = /^(?:await\s+)?[\w$.]+\(.*\)(?:\.[\w$]+\(.*\))*;?(?:\s*(?:\/\/|#).*)?$/;
const CODE_ASSIGNMENT = /^[\w$.]+(?:\[[^\]]*\])?\s*(?:[-+*/%|&]|\?\?)?=\s*[^=\s]/;
const CODE_PUNCTUATION = /^[)}\]]+[;,)]*$|[{;]$|^\}|=>\s*\{?$/;
const HEADING = /^#{1,6}\s+\S/;
const FENCE = /^(?:```|~~~)/;

/** A line of source code: shown in a traceback, or written in a reply. */
export function isCodeLine(line: string): boolean {
  const text = line.trim();
  return (
    CODE_FRAME.test(text) ||
    CODE_KEYWORD.test(text) ||
    CODE_CALL.test(text) ||
    CODE_ASSIGNMENT.test(text) ||
    CODE_PUNCTUATION.test(text)
  );
}

export const isHeadingLine = (line: string) => HEADING.test(line.trim());

function rejected(line: string): boolean {
  return FRAME.test(line) || LOCATION.test(line) || NO_WORDS.test(line) || FRAMED.test(line) || isCodeLine(line);
}

/** How much a (trimmed) line says about what failed. */
export function rankOf(line: string): number {
  const detail = PYTEST_DETAIL.exec(line)?.[1];
  // pytest marks a failure's explanation with `E`; its first one is usually the exception.
  if (detail !== undefined) return Math.max(RANK.detail, rejected(detail) ? RANK.rejected : rankOf(detail));
  if (rejected(line)) return RANK.rejected;
  if (VERDICT.test(line)) return RANK.verdict;
  if (WRAPPER.test(line)) return RANK.wrapper;
  if (
    TITLE.test(line) ||
    EXCEPTION.test(line) ||
    ERROR_LABEL.test(line) ||
    COMPILER_ERROR.test(line) ||
    MESSAGE_WORDS.test(line)
  )
    return RANK.message;
  if (FAILURE_COUNT.test(line)) return RANK.wrapper;
  if (DETAIL.test(line)) return RANK.detail;
  return MENTION.test(line) ? RANK.mention : RANK.plain;
}

/** The first line of the highest rank in `lines[from, to)`, or the last one with `latest`. */
function best(
  lines: readonly string[],
  ranks: readonly number[],
  from: number,
  to: number,
  min: number,
  latest = false,
): number {
  let found = -1;
  for (let at = from; at < to; at++) {
    const rank = ranks[at] ?? RANK.rejected;
    if (rank < min || TITLE.test(lines[at] ?? '')) continue;
    if (found === -1 || rank > (ranks[found] ?? RANK.rejected) || (latest && rank === ranks[found])) found = at;
  }
  return found;
}

/** A title's reason: its block's best line, else the line after it; a traceback's is its last exception, raised last. */
function reasonOf(lines: readonly string[], ranks: readonly number[], title: number): number[] {
  const line = lines[title] ?? '';
  // A unittest `FAIL: test_x (…)` block holds a traceback; a traceback's block ends at the next (chained) one.
  const next = lines.findIndex(
    (candidate, at) => at > title && TITLE.test(candidate) && (TRACEBACK.test(line) || !TRACEBACK.test(candidate)),
  );
  const end = next === -1 ? lines.length : next;
  if (TRACEBACK.test(line)) {
    const raised = lines
      .slice(title + 1, end)
      .findLastIndex(
        (candidate, at) =>
          (ranks[title + 1 + at] ?? RANK.rejected) >= RANK.message ||
          (PYTHON_EXCEPTION.test(candidate) && !rejected(candidate)),
      );
    return raised === -1 ? [] : [title + 1 + raised];
  }
  let reason = best(lines, ranks, title + 1, end, RANK.detail);
  // Rust ≥ 1.73 writes `panicked at src/lib.rs:4:5:` and the message, in no known shape, on the next line.
  if (reason === -1)
    reason = lines.findIndex((_, at) => at > title && at < end && (ranks[at] ?? RANK.rejected) > RANK.rejected);
  // A pytest verdict without its reason, at the end: the reason is in the `E` lines above it.
  if (reason === -1) reason = best(lines, ranks, 0, lines.length, RANK.detail);
  if (reason === -1) return [];
  const received = EXPECTED.test(lines[reason] ?? '') && RECEIVED.test(lines[reason + 1] ?? '') ? [reason + 1] : [];
  return [reason, ...received];
}

/**
 * The lines that say what failed, in order: the best-ranked line, and when it only opens a
 * failure (a traceback, a jest test title, a panic), the line that gives the reason. Lines are
 * trimmed and non-empty. Frames, separators and code are picked only when nothing else is there.
 */
export function keyErrorLines(lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  const ranks = lines.map(rankOf);
  const rank = (at: number) => ranks[at] ?? RANK.rejected;
  const top = best(lines, ranks, 0, lines.length, RANK.plain);
  const title = lines.findIndex((line) => TITLE.test(line));
  const titled = title !== -1 && (rank(title) > rank(top) || (rank(title) === rank(top) && title < top));
  // A runner's verdicts each name a test and its reason: the first few together say what failed.
  const verdicts =
    rank(top) === RANK.verdict
      ? lines.flatMap((_line, at) => (rank(at) === RANK.verdict ? [at] : [])).slice(0, MAX_VERDICTS)
      : [];
  const chosen = titled
    ? [title, ...reasonOf(lines, ranks, title)]
    : verdicts.length > 0
      ? verdicts
      : [top === -1 ? 0 : top];
  return chosen.map((at) => lines[at] ?? '');
}

/**
 * Assistant text as prose for a one-line list item: no fenced code, no code lines, no markdown
 * headings (a reply that quotes an earlier summary brings its headings along).
 */
export function proseOf(text: string): string {
  const kept: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line.trim())) {
      fenced = !fenced;
      continue;
    }
    if (fenced || isHeadingLine(line) || isCodeLine(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}
