/**
 * What a developer's question says in other words (issue 33): people ask in words ("which service
 * was missing the tenacity dependency", "couldn't reach postgres", "the flaky refund spec") what
 * the transcript holds as an error's name or another word (`ModuleNotFoundError`, `ECONNREFUSED`,
 * `test_refund_…`). A question's word in a group below also matches the group's other words, as
 * forms of the same term: the term's weight is then that of the group's words together (BM25 over
 * their union), so a common synonym makes the term weigh less, not more. Groups are general
 * software vocabulary (errors by name, tools' short names, verbs of the trade), each word in one
 * group; a few are asked for only after another word ("rate limit", "time out"). Pure.
 */
import { stemOf } from './question.js';

/**
 * Groups of words that mean the same in a developer's question. Words as the index tokenizes them
 * (lower case; `ModuleNotFoundError` is one word, `rate-limit` two).
 */
const GROUPS: readonly (readonly string[])[] = [
  // Tests and their troubles.
  ['test', 'spec', 'testcase'],
  ['dependent', 'depend'],
  ['flaky', 'flake', 'intermittent', 'intermittently', 'nondeterministic', 'stabilise', 'stabilize', 'deflake'],
  // Errors by what people call them.
  ['missing', 'lacked', 'lacking', 'absent', 'modulenotfounderror', 'importerror', 'notfound', 'enoent'],
  ['dependency', 'package', 'requirement', 'deps'],
  ['reach', 'unreachable', 'econnrefused', 'refused', 'ehostunreach'],
  ['duplicate', 'duplicated', 'dupe', 'uniqueviolation', 'unique'],
  ['crash', 'blow', 'blew', 'panic', 'segfault', 'throw', 'threw', 'exception'],
  ['hang', 'hung', 'stuck', 'freeze', 'deadlock'],
  ['leak', 'oom', 'outofmemoryerror'],
  ['permission', 'eacces', 'eperm', 'forbidden'],
  ['slow', 'sluggish', 'latency'],
  // Where and what.
  ['laptop', 'local', 'locally', 'localhost'],
  ['db', 'database'],
  ['config', 'configuration', 'cfg'],
  ['env', 'environment'],
  ['prod', 'production'],
  ['repo', 'repository'],
  ['k8s', 'kubernetes'],
  ['js', 'javascript'],
  ['ts', 'typescript'],
  ['py', 'python'],
  ['auth', 'authentication', 'login', 'signin'],
  ['docs', 'readme'],
  ['dir', 'directory', 'folder'],
  // What was done.
  ['fix', 'solve', 'resolve', 'repair'],
  ['bump', 'raise', 'increase'],
  ['rotate', 'roll', 'rekey'],
  ['remove', 'delete', 'drop'],
  ['upgrade', 'update'],
  ['settle', 'pick', 'choose', 'chose', 'chosen', 'decision', 'decide'],
  ['deploy', 'rollout', 'release'],
];

/**
 * Groups a two-word phrase stands for, given to its first word: "rate limit" is a throttle, "limit"
 * alone is not; "timed out" is a timeout.
 */
const PHRASES: readonly { words: readonly [string, string]; group: readonly string[] }[] = [
  { words: ['rate', 'limit'], group: ['throttle', 'throttled', 'throttling', '429', 'ratelimit', 'ratelimited'] },
  { words: ['time', 'out'], group: ['timeout', 'etimedout', 'timedout'] },
];

/** Each group's words by their stems: a question's word in any of its forms finds its group. */
const BY_STEM = new Map<string, readonly string[]>();
for (const group of GROUPS) for (const word of group) BY_STEM.set(stemOf(word), group);

/**
 * The other words the question's word at `at` of `tokens` (its tokens in order, tokenized as the
 * index is) stands for: its phrase's or its group's words but itself, or none.
 */
export function relatedWords(tokens: readonly string[], at: number): string[] {
  const stem = stemOf(tokens[at] ?? '');
  const next = stemOf(tokens[at + 1] ?? '');
  const phrase = PHRASES.find(({ words: [first, second] }) => stemOf(first) === stem && stemOf(second) === next);
  const group = phrase?.group ?? BY_STEM.get(stem) ?? [];
  return group.filter((word) => stemOf(word) !== stem);
}
