/**
 * Outputs of failing test runs, compilers and crashes in the shapes the tools print them (pytest,
 * unittest, jest, vitest, tsc, cargo, go, node), written by the tests themselves: long runs of
 * passing lines, tracebacks with source lines and frames, separators, and the line that says what
 * failed near the end. Each comes with the key facts a summary of it must keep. Deterministic.
 */
import type { LoadedEntry } from '../../daemon/transcripts/entries.js';
import { parseEntry } from '../../shared/transcript/parse.js';
import { growingUsage, type Line, type TranscriptWriter } from './real-shapes.js';

export interface FailingOutput {
  /** What produced it, for test names. */
  name: string;
  command: string;
  /** The output as the tool printed it (stdout and stderr interleaved). */
  output: string;
  /** Text the key line must keep: what failed and why. */
  facts: string[];
}

/** pytest's progress lines: `path ....  [ NN%]`, a failure as `F`. */
function progress(
  files: readonly string[],
  perFile: number,
  failing: ReadonlyMap<string, number>,
  total: number,
): string[] {
  let done = 0;
  return files.map((file) => {
    const marks = Array.from({ length: perFile }, (_, at) => (failing.get(file) === at ? 'F' : '.')).join('');
    done += perFile;
    return `${`${file} ${marks}`.padEnd(72)} [${String(Math.round((done / total) * 100)).padStart(3)}%]`;
  });
}

const PYTEST_FILES = Array.from(
  { length: 40 },
  (_, n) => `tests/test_${['api', 'errors', 'models', 'parser', 'totals'][n % 5]}_${String(n).padStart(2, '0')}.py`,
);

/** A long pytest run (`-ra` style summary at the end unless `summary` is false). */
export function pytestRun(summary = true): FailingOutput {
  const total = PYTEST_FILES.length * 8;
  const failing = new Map([
    ['tests/test_totals_04.py', 3],
    ['tests/test_parser_08.py', 5],
  ]);
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0',
    'rootdir: /home/dev/shop',
    'configfile: pyproject.toml',
    'plugins: anyio-4.3.0, cov-5.0.0',
    `collected ${total} items`,
    '',
    ...progress(PYTEST_FILES, 8, failing, total),
    '',
    '=================================== FAILURES ===================================',
    '________________________________ test_discount _________________________________',
    '',
    '    def test_discount():',
    '        cart = Cart(items=[Item(price=2), Item(price=2)])',
    '        cart.apply(Discount(percent=25))',
    '>       assert cart.total() == 4',
    'E       AssertionError: assert 3 == 4',
    'E        +  where 3 = <bound method Cart.total of Cart(items=2)>()',
    'E        +    where <bound method Cart.total of Cart(items=2)> = Cart(items=2).total',
    '',
    'tests/test_totals_04.py:31: AssertionError',
    '_________________________ ParserTest.test_rejects_empty _________________________',
    '',
    'self = <tests.test_parser_08.ParserTest testMethod=test_rejects_empty>',
    '',
    '    def test_rejects_empty(self):',
    '>       with self.assertRaises(ValueError):',
    'E       AssertionError: ValueError not raised',
    '',
    'tests/test_parser_08.py:18: AssertionError',
    '=============================== warnings summary ===============================',
    'tests/test_errors_01.py::test_error_page',
    '  /home/dev/shop/.venv/lib/python3.12/site-packages/jinja2/utils.py:12: DeprecationWarning: datetime.utcnow() is deprecated',
    '',
    '-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html',
  ];
  if (summary) {
    lines.push(
      '=========================== short test summary info ============================',
      'FAILED tests/test_totals_04.py::test_discount - AssertionError: assert 3 == 4',
      'FAILED tests/test_parser_08.py::ParserTest::test_rejects_empty - AssertionError: ValueError not raised',
    );
  }
  lines.push(`============= 2 failed, ${total - 2} passed, 1 warning in 4.87s ==============`);
  return {
    name: summary ? 'pytest' : 'pytest without summary',
    command: summary ? 'python -m pytest -ra' : 'python -m pytest -q -rN',
    output: lines.join('\n'),
    facts: summary
      ? ['FAILED tests/test_totals_04.py::test_discount - AssertionError: assert 3 == 4', 'ValueError not raised']
      : ['AssertionError: assert 3 == 4'],
  };
}

export function jestRun(): FailingOutput {
  const passing = Array.from(
    { length: 30 },
    (_, n) => ` PASS  src/${['errors', 'format', 'money'][n % 3]}/case-${n}.test.ts`,
  );
  const lines = [
    '> invoices@2.3.0 test',
    '> jest --ci',
    '',
    ...passing,
    ' FAIL  src/totals.test.ts',
    '  ● totals › applies the discount before tax',
    '',
    '    expect(received).toBe(expected) // Object.is equality',
    '',
    '    Expected: 10353',
    '    Received: 10638',
    '',
    '      12 |   const total = computeTotal(invoice);',
    '    > 13 |   expect(total).toBe(10353);',
    '         |                 ^',
    '      14 | });',
    '',
    '      at Object.<anonymous> (src/totals.test.ts:13:17)',
    '',
    'Test Suites: 1 failed, 30 passed, 31 total',
    'Tests:       1 failed, 212 passed, 213 total',
    'Snapshots:   0 total',
    'Time:        6.114 s',
    'Ran all test suites.',
  ];
  return {
    name: 'jest',
    command: 'npm test',
    output: lines.join('\n'),
    facts: ['● totals › applies the discount before tax', 'Expected: 10353'],
  };
}

export function vitestRun(): FailingOutput {
  const passing = Array.from(
    { length: 25 },
    (_, n) => ` ✓ test/unit/${['errors', 'queue', 'store'][n % 3]}-${n}.test.ts (${4 + (n % 7)} tests) ${12 + n}ms`,
  );
  const lines = [
    ' RUN  v2.1.8 /home/dev/queue',
    '',
    ...passing,
    ' ❯ test/unit/retry.test.ts (6 tests | 1 failed) 41ms',
    '   × retry > gives up after the third attempt 9ms',
    '     → expected 4 to be 3 // Object.is equality',
    '',
    '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
    '',
    ' FAIL  test/unit/retry.test.ts > retry > gives up after the third attempt',
    'AssertionError: expected 4 to be 3 // Object.is equality',
    '',
    '- Expected',
    '+ Received',
    '',
    '- 3',
    '+ 4',
    '',
    ' ❯ test/unit/retry.test.ts:27:22',
    '     25|     await expect(run()).rejects.toThrow();',
    '     26|     expect(attempts).toBe(3);',
    '       |                      ^',
    '',
    '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯',
    '',
    ' Test Files  1 failed | 25 passed (26)',
    '      Tests  1 failed | 160 passed (161)',
  ];
  return {
    name: 'vitest',
    command: 'npx vitest run',
    output: lines.join('\n'),
    facts: ['AssertionError: expected 4 to be 3'],
  };
}

/** `tsc -b --verbose`: the projects it builds, then the error. */
export function tscBuild(): FailingOutput {
  const projects = ['core', 'errors', 'http', 'cli'];
  const lines = [
    '[9:14:02 AM] Projects in this build: ',
    ...projects.map((name) => `    * packages/${name}/tsconfig.json`),
    '',
    ...projects
      .slice(0, 2)
      .flatMap((name) => [
        `[9:14:02 AM] Project 'packages/${name}/tsconfig.json' is up to date because newest input 'packages/${name}/src/index.ts' is older than output 'packages/${name}/dist/index.js'`,
        '',
      ]),
    "[9:14:03 AM] Building project '/home/dev/mono/packages/http/tsconfig.json'...",
    '',
    "packages/http/src/client.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    "packages/http/src/client.ts(40,11): error TS2339: Property 'retries' does not exist on type 'Options'.",
    '',
    "[9:14:04 AM] Skipping build of project '/home/dev/mono/packages/cli/tsconfig.json' because its dependency '/home/dev/mono/packages/http' has errors",
    '',
    'Found 2 errors.',
  ];
  return {
    name: 'tsc',
    command: 'npx tsc -b --verbose',
    output: lines.join('\n'),
    facts: [
      "packages/http/src/client.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    ],
  };
}

export function cargoBuild(): FailingOutput {
  const lines = [
    '   Compiling libc v0.2.155',
    '   Compiling serde v1.0.203',
    '   Compiling ledger v0.3.0 (/home/dev/ledger)',
    'warning: unused import: `crate::errors::ParseError`',
    ' --> src/parse.rs:3:5',
    '  |',
    '3 | use crate::errors::ParseError;',
    '  |     ^^^^^^^^^^^^^^^^^^^^^^^^^',
    '  |',
    '  = note: `#[warn(unused_imports)]` on by default',
    '',
    'error[E0308]: mismatched types',
    ' --> src/ledger.rs:41:24',
    '   |',
    '41 |     let cents: i64 = amount.parse_str();',
    '   |                ---   ^^^^^^^^^^^^^^^^^^ expected `i64`, found `&str`',
    '   |                |',
    '   |                expected due to this',
    '',
    'For more information about this error, try `rustc --explain E0308`.',
    'warning: `ledger` (lib) generated 1 warning',
    'error: could not compile `ledger` (lib) due to 1 previous error; 1 warning emitted',
  ];
  return {
    name: 'cargo build',
    command: 'cargo build',
    output: lines.join('\n'),
    facts: ['error[E0308]: mismatched types'],
  };
}

export function cargoTest(): FailingOutput {
  const tests = Array.from(
    { length: 60 },
    (_, n) => `test ${['errors', 'ledger', 'parse'][n % 3]}::tests::case_${n} ... ok`,
  );
  const lines = [
    '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.41s',
    '     Running unittests src/lib.rs (target/debug/deps/ledger-5f1c2a9e)',
    '',
    'running 61 tests',
    ...tests.slice(0, 30),
    'test ledger::tests::balance_after_refund ... FAILED',
    ...tests.slice(30),
    '',
    'failures:',
    '',
    '---- ledger::tests::balance_after_refund stdout ----',
    "thread 'ledger::tests::balance_after_refund' panicked at src/ledger.rs:88:9:",
    'assertion `left == right` failed',
    '  left: 1500',
    ' right: 1000',
    'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
    '',
    '',
    'failures:',
    '    ledger::tests::balance_after_refund',
    '',
    'test result: FAILED. 60 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s',
    '',
    'error: test failed, to rerun pass `--lib`',
  ];
  return {
    name: 'cargo test',
    command: 'cargo test',
    output: lines.join('\n'),
    facts: ['panicked at src/ledger.rs:88:9', 'assertion `left == right` failed'],
  };
}

export function goTest(): FailingOutput {
  const names = Array.from({ length: 30 }, (_, n) => `Test${['ParseErrors', 'Split', 'Join'][n % 3]}${n}`);
  const lines = [
    ...names.flatMap((name) => [`=== RUN   ${name}`, `--- PASS: ${name} (0.00s)`]),
    '=== RUN   TestAdd',
    '    calc_test.go:9: Add(1, 2) = 4; want 3',
    '--- FAIL: TestAdd (0.00s)',
    'FAIL',
    'exit status 1',
    'FAIL\texample.com/calc\t0.004s',
  ];
  return {
    name: 'go test',
    command: 'go test -v ./...',
    output: lines.join('\n'),
    facts: ['calc_test.go:9: Add(1, 2) = 4; want 3'],
  };
}

export function nodeCrash(): FailingOutput {
  const lines = [
    '> api@1.4.0 start',
    '> node src/server.js',
    '',
    '[boot] loading config from config/default.json',
    '[boot] registering errorHandler middleware',
    '[boot] mounting 14 routes',
    '/home/dev/api/src/routes/orders.js:27',
    '    handler.run(req, res);',
    '            ^',
    '',
    'TypeError: handler.run is not a function',
    '    at mount (/home/dev/api/src/routes/orders.js:27:13)',
    '    at Array.forEach (<anonymous>)',
    '    at Object.<anonymous> (/home/dev/api/src/server.js:11:8)',
    '    at Module._compile (node:internal/modules/cjs/loader:1358:14)',
    '',
    'Node.js v20.15.0',
  ];
  return {
    name: 'node crash',
    command: 'npm start',
    output: lines.join('\n'),
    facts: ['TypeError: handler.run is not a function'],
  };
}

/** A unittest run: the failure's title, its traceback, and what was raised. */
export function unittestRun(): FailingOutput {
  const lines = [
    ...Array.from({ length: 8 }, () => '.'.repeat(70)),
    'F..',
    '======================================================================',
    'FAIL: test_rejects_empty (tests.test_parser.ParserTest.test_rejects_empty)',
    '----------------------------------------------------------------------',
    'Traceback (most recent call last):',
    '  File "/home/dev/shop/tests/test_parser.py", line 18, in test_rejects_empty',
    '    with self.assertRaises(ValueError):',
    'AssertionError: ValueError not raised',
    '',
    '----------------------------------------------------------------------',
    'Ran 563 tests in 1.204s',
    '',
    'FAILED (failures=1)',
  ];
  return {
    name: 'unittest',
    command: 'python -m unittest',
    output: lines.join('\n'),
    facts: ['FAIL: test_rejects_empty', 'AssertionError: ValueError not raised'],
  };
}

export const FAILING_OUTPUTS = [
  pytestRun(),
  pytestRun(false),
  unittestRun(),
  jestRun(),
  vitestRun(),
  tscBuild(),
  cargoBuild(),
  cargoTest(),
  goTest(),
  nodeCrash(),
];

/** How a failed Bash call's result is recorded. */
export type FailureRecord = 'is_error' | 'exit header only' | 'exit code in toolUseResult';

/**
 * A Bash round whose command failed, recorded as Claude Code does (`Exit code N` first, is_error)
 * or in the other shapes transcripts hold: the header without is_error, or only the exit code in
 * toolUseResult.
 */
export function failingBash(
  writer: TranscriptWriter,
  n: number,
  command: string,
  output: string,
  record: FailureRecord = 'is_error',
): void {
  const id = `toolu_fail${String(n).padStart(4, '0')}`;
  writer.response(
    [
      { type: 'text', text: `Running \`${command}\`.` },
      { type: 'tool_use', id, name: 'Bash', input: { command, description: 'Run it' } },
    ],
    growingUsage(n),
  );
  const content = record === 'exit code in toolUseResult' ? output : `Exit code 1\n${output}`;
  const meta: Line =
    record === 'exit code in toolUseResult' ? { stdout: output, stderr: '', interrupted: false, exitCode: 1 } : {};
  writer.user([{ type: 'tool_result', tool_use_id: id, content, is_error: record === 'is_error' }], {
    toolUseResult: record === 'is_error' ? `Error: Exit code 1\n${output}` : meta,
  });
}

/** A tool round with its result and optional toolUseResult. */
export function toolCall(
  writer: TranscriptWriter,
  n: number,
  name: string,
  input: Line,
  result = 'ok',
  meta?: unknown,
): void {
  const id = `toolu_call${String(n).padStart(4, '0')}`;
  writer.response([{ type: 'tool_use', id, name, input }], growingUsage(n));
  writer.user(
    [{ type: 'tool_result', tool_use_id: id, content: result }],
    meta === undefined ? {} : { toolUseResult: meta },
  );
}

/** The writer's lines as loaded entries, as the summarizers get them. */
export function loadedOf(writer: TranscriptWriter): LoadedEntry[] {
  return writer.lines.map((raw) => {
    const entry = parseEntry(raw, 0, 0);
    if (entry === null) throw new Error(`not an entry: ${JSON.stringify(raw).slice(0, 80)}`);
    return { entry, raw };
  });
}
