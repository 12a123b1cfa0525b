/**
 * Sessions with seeded facts, for measuring what a summary or handoff keeps (docs/fidelity.md):
 * Claude Code 2.1.197's shape, our own text, the same bytes for the same seed. Each session seeds
 * files changed (Edit, Write, and Bash writes: `sed -i`, a redirection), files only read (Read, `cat`),
 * a failing command with its key line and then its fix, a todo list left with pending items, the
 * user's rules (verbatim sentences) and decisions (the user's choice, the assistant's stated one),
 * and distractors: pre-existing uncommitted files git shows but nobody touched, the task sentence,
 * a follow-up request that is no correction. `truth` lists what the transcript supports.
 */

import type { GitFacts } from '../../daemon/handoff/git.js';
import type { LoadedEntry } from '../../daemon/transcripts/entries.js';
import { parseEntry } from '../../shared/transcript/parse.js';
import { growingUsage, type Line, TranscriptWriter } from './real-shapes.js';
import { seededRandom } from './seeded-random.mjs';

export type FileStatus = 'created' | 'modified';

export interface SeededTruth {
  cwd: string;
  /** Changed in this session, with the final status. */
  changed: { path: string; status: FileStatus }[];
  /** Read and never changed. */
  read: string[];
  /** Uncommitted before the session (git shows them) and never touched: naming them changed is wrong. */
  untouched: string[];
  /** Failed commands and the line that says why; each is fixed later in the session. */
  errors: { command: string; keyLine: string }[];
  /** Open (pending or in progress) in the last todo list. */
  todos: string[];
  /** Completed in the last todo list: stating them as pending is wrong. */
  doneTodos: string[];
  /** The user's constraints, verbatim. */
  rules: string[];
  /** What was decided, with the words a mention must carry. */
  decisions: { text: string; key: string[] }[];
  /** Every prompt, the first being the task. */
  prompts: string[];
}

export interface SeededSession {
  sessionId: string;
  writer: TranscriptWriter;
  truth: SeededTruth;
  /** What `git status` showed: the untouched files and the changed ones. */
  git: GitFacts;
}

const VERSION = '2.1.197';
const PROJECTS = ['cart-service', 'invoice-tool', 'feed-reader', 'ledger-api', 'report-builder', 'order-sync'];
const NOUNS = ['cart', 'invoice', 'ledger', 'refund', 'coupon', 'shipping', 'tax', 'payout', 'basket', 'receipt'];
const VERBS = ['total', 'round', 'parse', 'merge', 'validate', 'format'];
const LIBRARIES: [string, string][] = [
  ['decimal.js', 'money arithmetic'],
  ['zod', 'input validation'],
  ['date-fns', 'date handling'],
  ['pino', 'logging'],
  ['undici', 'HTTP calls'],
];
const RULES = [
  'Never touch package.json.',
  'Always run npm test before committing.',
  "Don't add new dependencies.",
  'Only change files under src/.',
  'Prefer small functions over classes.',
  'You must not rename exported functions.',
];
const DECISIONS: [string, string[]][] = [
  ['store amounts as integer cents', ['integer cents']],
  ['keep the public API unchanged and add an options argument', ['options argument']],
  ['round half to even at the last step', ['half to even']],
  ['cache the parsed rates per request', ['parsed rates']],
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** `count` distinct items, in a seeded order. */
function distinct<T>(random: () => number, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as T);
  return out;
}

/** The session for `seed`; the same seed gives the same transcript and truth. */
export function seededSession(seed: number): SeededSession {
  const random = seededRandom(seed);
  const sessionId = `5eed${String(seed).padStart(4, '0')}-0000-4000-8000-${String(seed).padStart(12, '0')}`;
  const cwd = `/home/user/src/${pick(random, PROJECTS)}`;
  const writer = new TranscriptWriter({ sessionId, cwd, version: VERSION, model: 'claude-opus-4-8' });
  let round = 0;
  const usage = () => growingUsage(++round);
  const [a, b, c, d, e, f] = distinct(random, NOUNS, 6) as [string, string, string, string, string, string];
  const verb = pick(random, VERBS);
  const abs = (path: string) => `${cwd}/${path}`;
  const truth: SeededTruth = {
    cwd,
    changed: [],
    read: [],
    untouched: [abs('package.json'), abs(`notes/${f}.md`)],
    errors: [],
    todos: [],
    doneTodos: [],
    rules: [],
    decisions: [],
    prompts: [],
  };
  const prompt = (text: string) => {
    truth.prompts.push(text);
    writer.prompt(text);
  };
  const reply = (text: string) => writer.response([{ type: 'text', text }], usage());
  const tool = (name: string, input: Line, result: string, meta?: Line, isError = false) => {
    const toolUseId = `toolu_${sessionId.slice(0, 8)}${String(round).padStart(4, '0')}`;
    writer.response([{ type: 'tool_use', id: toolUseId, name, input }], usage());
    writer.user(
      [{ type: 'tool_result', tool_use_id: toolUseId, content: result, is_error: isError }],
      meta === undefined ? {} : { toolUseResult: meta },
    );
  };

  // The task sentence: a request, neither a rule nor a correction.
  const main = `src/${a}.js`;
  // Task sentences with words a naive finder takes for a correction (instead) or a rule (only).
  const task = Math.floor(random() * 3);
  prompt(
    task === 0
      ? `Check that ${main} computes the ${verb} right for a ${b} with several lines, and fix it if not.`
      : task === 1
        ? `Check that ${main} computes the ${verb} from the line amounts instead of counting lines.`
        : `Make ${main} only add the paid lines of a ${b} to the ${verb}.`,
  );
  tool('Bash', { command: 'git status --short' }, `?? package.json\n?? notes/${f}.md`);
  tool('Read', { file_path: abs(main) }, `1\texport function ${verb}(lines) {\n2\t  return lines.length;\n3\t}`);
  tool('Bash', { command: `cat src/${c}.js` }, `export const ${c} = { rate: 0.2 };`);
  truth.read.push(abs(`src/${c}.js`));

  const rules = distinct(random, RULES, 2);
  prompt(`${rules[0]} ${rules[1]}`);
  truth.rules.push(...rules.map((rule) => rule.replace(/\.$/, '')));
  const todos = [`Fix ${verb} in ${main}`, `Add a test for the ${b} ${verb}`, `Document the ${d} format`];
  tool(
    'TodoWrite',
    { todos: todos.map((content, i) => ({ content, status: i === 0 ? 'in_progress' : 'pending' })) },
    'Todos have been modified successfully.',
  );

  // A decision of the user's, then one the assistant states.
  const [library, purpose] = pick(random, LIBRARIES);
  const [decided, words] = pick(random, DECISIONS);
  reply(`For ${purpose}, should I use ${library} or write a small helper?`);
  prompt(`Use ${library} for ${purpose}.`);
  truth.decisions.push({ text: `use ${library} for ${purpose}`, key: [library] });
  reply(`Decision: we will ${decided}, so every step stays exact.`);
  truth.decisions.push({ text: decided, key: words });

  tool(
    'Edit',
    { file_path: abs(main), old_string: 'return lines.length;', new_string: 'return sum(lines);' },
    `The file ${abs(main)} has been updated successfully.`,
  );
  const test = `test/${a}.test.js`;
  tool(
    'Write',
    { file_path: abs(test), content: `test('${verb}', () => {});\n` },
    `File created successfully at: ${abs(test)}`,
    { type: 'create', filePath: abs(test) },
  );
  truth.changed.push({ path: abs(main), status: 'modified' }, { path: abs(test), status: 'created' });

  // A failure with its key line, then its fix.
  const expected = 100 + Math.floor(random() * 900);
  const keyLine = `AssertionError: expected ${expected + 20} to equal ${expected}`;
  tool(
    'Bash',
    { command: 'npm test' },
    `Exit code 1\n> test\n> node --test\n\n✖ ${verb} of a ${b}\n  ${keyLine}\n    at ${test}:3:5\n\nfailures: 1`,
    undefined,
    true,
  );
  truth.errors.push({ command: 'npm test', keyLine });
  // Bash writes: an in-place edit and a redirection to a new file.
  tool('Bash', { command: `sed -i 's/rate: 0.2/rate: 0.25/' src/${e}.js` }, '');
  tool('Bash', { command: `echo 'export const ${d} = [];' > src/${d}.js` }, '');
  truth.changed.push({ path: abs(`src/${e}.js`), status: 'modified' }, { path: abs(`src/${d}.js`), status: 'created' });
  tool('Bash', { command: 'npm test' }, `> test\n> node --test\n\n✔ ${verb} of a ${b}\n\npass 1`);

  // A follow-up request that is not a correction.
  prompt(`Also make the ${b} ${verb} skip empty lines.`);
  tool(
    'Edit',
    { file_path: abs(main), old_string: 'sum(lines)', new_string: 'sum(lines.filter(Boolean))' },
    `The file ${abs(main)} has been updated successfully.`,
  );
  tool(
    'TodoWrite',
    { todos: todos.map((content, i) => ({ content, status: i === 0 ? 'completed' : 'pending' })) },
    'Todos have been modified successfully.',
  );
  truth.todos.push(...todos.slice(1));
  truth.doneTodos.push(todos[0] as string);
  reply(`The ${verb} now sums the lines and skips empty ones; the tests pass. Next I will add the ${b} test.`);

  const git: GitFacts = {
    top: cwd,
    branch: 'main',
    porcelain: ['?? package.json', `?? notes/${f}.md`, ` M ${main}`, ` M src/${e}.js`, `?? ${test}`, `?? src/${d}.js`],
    entries: [
      { code: '??', path: abs('package.json'), from: null },
      { code: '??', path: abs(`notes/${f}.md`), from: null },
      { code: ' M', path: abs(main), from: null },
      { code: ' M', path: abs(`src/${e}.js`), from: null },
      { code: '??', path: abs(test), from: null },
      { code: '??', path: abs(`src/${d}.js`), from: null },
    ],
    diffStat: null,
  };
  return { sessionId, writer, truth, git };
}

/** The transcript as the daemon loads it, for the pure summarizers. */
export function loadedOf(writer: TranscriptWriter): LoadedEntry[] {
  return writer.lines.map((raw) => {
    const entry = parseEntry(raw, 0, 0);
    if (entry === null) throw new Error('seeded-facts: a line is not an entry');
    return { entry, raw };
  });
}
