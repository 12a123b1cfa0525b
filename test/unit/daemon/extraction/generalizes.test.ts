/**
 * The offline session memory on transcripts it was not tuned to (issue 12 item 6): the key line
 * of a failure found by its shape wherever it sits, no code or old headings as bullets, no
 * pending item that later turns finished, one entry per file with its final status.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import { templateSections } from '../../../../daemon/extraction/template.js';
import { errorKeyLine } from '../../../../daemon/transcripts/facts.js';
import {
  FAILING_OUTPUTS,
  type FailureRecord,
  failingBash,
  goTest,
  loadedOf,
  pytestRun,
  toolCall,
} from '../../../helpers/failing-outputs.js';
import { growingUsage, TranscriptWriter } from '../../../helpers/real-shapes.js';

const CWD = '/home/dev/shop';
const HEADINGS = templateSections().map((section) => section.heading);

/** Section bodies by their place in the template. */
function sections(text: string): string[] {
  const at = HEADINGS.map((heading) => text.indexOf(`${heading}\n`));
  return at.map((position, index) => text.slice(position, (at[index + 1] ?? text.length + 2) - 2));
}

const writer = () =>
  new TranscriptWriter({ sessionId: '5e551011-0000-4000-8000-00000000c0de', cwd: CWD, version: '2.1.38' });

function reply(session: TranscriptWriter, n: number, text: string): void {
  session.response([{ type: 'text', text }], growingUsage(n));
}

const recall: string[] = [];
afterAll(() =>
  console.log(`offline session memory, error facts found on generated failing outputs:\n${recall.join('\n')}`),
);

describe('the key line of a failure, by its shape', () => {
  const cases: [string, ReturnType<typeof pytestRun>, FailureRecord][] = [
    ...FAILING_OUTPUTS.map((output): [string, ReturnType<typeof pytestRun>, FailureRecord] => [
      output.name,
      output,
      'is_error',
    ]),
    ['pytest, exit header without is_error', pytestRun(), 'exit header only'],
    ['go test, exit code only in toolUseResult', goTest(), 'exit code in toolUseResult'],
  ];

  it.each(cases)('%s: Errors & Corrections keeps what failed and why', (_, output, record) => {
    const session = writer();
    session.prompt('Run the tests and tell me what fails.');
    failingBash(session, 1, output.command, output.output, record);
    reply(session, 2, 'One test fails; looking into it.');
    const errors = sections(offlineSessionMemory({ loaded: loadedOf(session) }))[5] ?? '';
    const found = output.facts.filter((fact) => errors.includes(fact));
    recall.push(`  ${_}: ${found.length}/${output.facts.length}`);
    expect(errors).toContain(`- Bash \`${output.command}\` failed (exit 1): `);
    expect(output.facts.filter((fact) => !errors.includes(fact))).toEqual([]);
  });

  it('never picks a stack frame, a separator or a line of code while another line is there', () => {
    const frames =
      'Exit code 1\n    at ErrorBoundary.render (src/errors.tsx:3:9)\n    at processChild (node_modules/react-dom/cjs/react-dom.js:3990:14)\nrender failed';
    expect(errorKeyLine(frames)).toBe('render failed');
    const separators =
      '=================== ERRORS ===================\n___________ ERROR collecting tests/test_app.py ___________\nImportError while importing test module';
    expect(errorKeyLine(separators)).toBe('ImportError while importing test module');
    const code =
      "    def test_error_message():\n>       assert format_error(3) == \"E3\"\nE       AssertionError: assert 'E03' == 'E3'";
    expect(errorKeyLine(code)).toBe("E       AssertionError: assert 'E03' == 'E3'");
    const thrown = "        throw new Error('unreachable');\n        ^\nError: connect ECONNREFUSED 127.0.0.1:5432";
    expect(errorKeyLine(thrown)).toBe('Error: connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('ranks an error-shaped line above the lines that mention errors, wherever it sits', () => {
    const passing = Array.from({ length: 300 }, (_, n) => `test_error_handling_${n} PASSED`).join('\n');
    expect(errorKeyLine(`Exit code 1\n${passing}\nKeyError: 'currency'`)).toBe("KeyError: 'currency'");
    expect(
      errorKeyLine(
        `${passing}\nsrc/a.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.`,
      ),
    ).toContain('error TS2345');
  });
});

describe('bullets from assistant text and earlier summaries', () => {
  it('leave out fenced code, code lines and markdown headings', () => {
    const session = writer();
    session.prompt('Fix the rounding in totals.');
    toolCall(session, 1, 'Edit', { file_path: `${CWD}/src/totals.js`, old_string: 'a', new_string: 'b' });
    reply(
      session,
      2,
      '## Summary\n\nFixed the rounding in `totals.js`:\n\n```js\nconst total = Math.round(subtotal * (1 + tax));\n```\n\n    return total;\n\nAll 213 tests pass.',
    );
    const [, current, , , , , , , , worklog] = sections(offlineSessionMemory({ loaded: loadedOf(session) }));
    for (const body of [current, worklog]) {
      expect(body).toContain('Fixed the rounding in `totals.js`: All 213 tests pass.');
      for (const code of ['## Summary', '```', 'const total', 'return total']) expect(body).not.toContain(code);
    }
  });

  it('a compaction summary’s code and headings are not carried as items', () => {
    const summary = [
      'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
      'Summary:',
      '1. Primary Request and Intent:',
      '   Add idempotency keys to create_charge.',
      '3. Files and Code Sections:',
      '   ## payments',
      '   - payments/store.py',
      '      - Holds the idempotency store',
      '      ```python',
      '      def get_idempotent(key):',
      '          return _store.get(key)',
      '      ```',
      '   def remember_idempotent(key, charge):',
      '4. Errors and fixes:',
      '   - None.',
    ].join('\n');
    const session = writer();
    session.user(summary, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
    session.prompt('Carry on.');
    const [, , , files] = sections(offlineSessionMemory({ loaded: loadedOf(session) }));
    expect(files).toContain('- payments/store.py');
    expect(files).toContain('- Holds the idempotency store');
    for (const code of ['```', 'def get_idempotent', 'return _store', 'def remember_idempotent', '## payments'])
      expect(files).not.toContain(code);
  });

  it('a sub-heading in a previous memory keeps its section’s lines and is no item', () => {
    const previous = `${templateSections()
      .map((section) => `${section.heading}\n${section.description.join('\n')}\n`)
      .join('\n')}`.replace(
      '# Files and Functions\n_The files and functions that matter, what they contain and why they are relevant_\n',
      '# Files and Functions\n_The files and functions that matter, what they contain and why they are relevant_\n\n### Parser\n- `src/parse.py` — the tokenizer and `parse_amount`\n',
    );
    const session = writer();
    session.prompt('Go on with the parser.');
    const [, , , files] = sections(offlineSessionMemory({ loaded: loadedOf(session), previous }));
    expect(files).toContain('- `src/parse.py` — the tokenizer and `parse_amount`');
    expect(files).not.toContain('Parser\n');
  });
});

describe('pending items', () => {
  it('a todo the later turns did (file written, tests passed) is not pending; the others stay', () => {
    const session = writer();
    session.prompt('Add tests for the parser.');
    const todos = (status: string) => [
      { content: 'Write tests/test_parser.py', status, activeForm: 'Writing the tests' },
      { content: 'Run the test suite until it passes', status: 'pending', activeForm: 'Running the tests' },
      { content: 'Update the changelog', status: 'pending', activeForm: 'Updating the changelog' },
    ];
    toolCall(session, 1, 'TodoWrite', { todos: todos('in_progress') }, 'Todos have been modified successfully.');
    toolCall(
      session,
      2,
      'Write',
      { file_path: `${CWD}/tests/test_parser.py`, content: 'def test_empty():\n    assert parse("") == []\n' },
      'File created successfully',
      {
        type: 'create',
        filePath: `${CWD}/tests/test_parser.py`,
      },
    );
    toolCall(
      session,
      3,
      'Bash',
      { command: 'python -m pytest -q' },
      '........                                                                 [100%]\n8 passed in 0.12s',
      {
        stdout: '8 passed in 0.12s',
        stderr: '',
        interrupted: false,
      },
    );
    const [, current] = sections(offlineSessionMemory({ loaded: loadedOf(session) }));
    expect(current).not.toContain('test_parser.py');
    expect(current).not.toContain('Run the test suite');
    expect(current).toContain('- Pending: Update the changelog');
  });

  it('a carried pending item whose file was changed since is not pending', () => {
    const previous = '# Current State\n- Pending: Add retries to src/upload.ts\n- Pending: Document the retry budget\n';
    const session = writer();
    session.prompt('Continue.');
    toolCall(
      session,
      1,
      'Edit',
      { file_path: `${CWD}/src/upload.ts`, old_string: 'send()', new_string: 'withRetries(send)' },
      'The file has been updated.',
    );
    const [, current] = sections(offlineSessionMemory({ loaded: loadedOf(session), previous }));
    expect(current).not.toContain('Add retries');
    expect(current).toContain('- Pending: Document the retry budget');
  });

  it('"Next I\'ll …" that the calls after it did is not left as the current step', () => {
    const session = writer();
    session.prompt('Why does parse_amount fail on "1,299"?');
    reply(
      session,
      1,
      "Found it: the comma is read as a decimal point. Next I'll fix `parse_amount` in src/money.py and run pytest.",
    );
    toolCall(
      session,
      2,
      'Edit',
      { file_path: `${CWD}/src/money.py`, old_string: "replace(',', '.')", new_string: "replace(',', '')" },
      'The file has been updated.',
    );
    toolCall(session, 3, 'Bash', { command: 'python -m pytest -q' }, '12 passed in 0.30s');
    const [, current] = sections(offlineSessionMemory({ loaded: loadedOf(session) }));
    expect(current).toContain('- Last assistant text: Found it: the comma is read as a decimal point.');
    expect(current).not.toContain("Next I'll fix");
  });
});

describe('files', () => {
  it('each file once, with its final status, whatever the calls and path forms', () => {
    const session = writer();
    session.prompt('Tidy up the cart module.');
    let n = 0;
    const call = (name: string, input: Record<string, unknown>, result = 'ok', meta?: unknown) =>
      toolCall(session, ++n, name, input, result, meta);
    call('Read', { file_path: `${CWD}/src/cart.py` });
    call('Edit', { file_path: `${CWD}/src/cart.py`, old_string: 'a', new_string: 'def total(self):' });
    call('MultiEdit', {
      file_path: `${CWD}/src/cart.py`,
      edits: [{ old_string: 'b', new_string: 'def add(self, item):' }],
    });
    call('Read', { file_path: `${CWD}/src/item.py` });
    call(
      'Write',
      { file_path: `${CWD}/src/discount.py`, content: 'class Discount:\n    pass\n' },
      'File created successfully',
      { type: 'create', filePath: `${CWD}/src/discount.py` },
    );
    call('Edit', { file_path: `${CWD}/src/discount.py`, old_string: 'pass', new_string: 'percent = 0' });
    call('Write', { file_path: `${CWD}/src/legacy_cart.py`, content: 'x = 1\n' }, 'File written', {
      type: 'update',
      filePath: `${CWD}/src/legacy_cart.py`,
    });
    call('Bash', { command: 'git rm -q src/legacy_cart.py && python -m pytest -q' }, '31 passed in 0.41s');
    call('Read', { file_path: 'src/money.py' });
    call('Edit', { file_path: `${CWD}/src/./money.py`, old_string: 'c', new_string: 'd' });
    const [, , , files = ''] = sections(offlineSessionMemory({ loaded: loadedOf(session) }));
    const lines = files.split('\n').filter((line) => line.startsWith('- `'));
    const line = (name: string) =>
      lines.filter(
        (candidate) =>
          candidate.includes(`/${name}\``) || candidate.includes(`\`${name}\``) || candidate.includes(`src/${name}`),
      );
    expect(line('cart.py')).toEqual([`- \`${CWD}/src/cart.py\` — edited; defines \`total\`, \`add\``]);
    expect(line('item.py')).toEqual([`- \`${CWD}/src/item.py\` — read`]);
    expect(line('discount.py')).toEqual([`- \`${CWD}/src/discount.py\` — created; defines \`Discount\``]);
    expect(line('legacy_cart.py')).toEqual([`- \`${CWD}/src/legacy_cart.py\` — deleted`]);
    expect(line('money.py')).toEqual(['- `src/money.py` — edited']);
    expect(lines).toHaveLength(5);
  });
});
