/**
 * The offline session memory on transcripts it was not tuned to (issue 12 item 6): the key line
 * of a failure found by its shape wherever it sits, no code or old headings as bullets, no
 * pending item that later turns finished, one entry per file with its final status.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { templateSections } from '../../../../daemon/summarize/memory-template.js';
import { offlineSessionMemory } from '../../../../daemon/summarize/offline-memory.js';
import { errorKeyLine } from '../../../../daemon/summarize/transcript-facts.js';
import { FAILING_OUTPUTS, failingBash, goTest, loadedOf, pytestRun, toolCall, type FailureRecord } from '../../../helpers/failing-outputs.js';
import { growingUsage, TranscriptWriter } from '../../../helpers/real-shapes.js';

const CWD = '/home/dev/shop';
const HEADINGS = templateSections().map((section) => section.heading);

/** Section bodies by their place in the template. */
function sections(text: string): string[] {
  const at = HEADINGS.map((heading) => text.indexOf(`${heading}\n`));
  return at.map((position, index) => text.slice(position, (at[index + 1] ?? text.length + 2) - 2));
}

const writer = () => new TranscriptWriter({ sessionId: '5e551011-0000-4000-8000-00000000c0de', cwd: CWD, version: '2.1.38' });

function reply(session: TranscriptWriter, n: number, text: string): void {
  session.response([{ type: 'text', text }], growingUsage(n));
}

const recall: string[] = [];
afterAll(() => console.log(`offline session memory, error facts found on generated failing outputs:\n${recall.join('\n')}`));

describe('the key line of a failure, by its shape', () => {
  const cases: [string, ReturnType<typeof pytestRun>, FailureRecord][] = [
    ...FAILING_OUTPUTS.map((output): [string, ReturnType<typeof pytestRun>, FailureRecord] => [output.name, output, 'is_error']),
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
    const frames = 'Exit code 1\n    at ErrorBoundary.render (src/errors.tsx:3:9)\n    at processChild (node_modules/react-dom/cjs/react-dom.js:3990:14)\nrender failed';
    expect(errorKeyLine(frames)).toBe('render failed');
    const separators = '=================== ERRORS ===================\n___________ ERROR collecting tests/test_app.py ___________\nImportError while importing test module';
    expect(errorKeyLine(separators)).toBe('ImportError while importing test module');
    const code = '    def test_error_message():\n>       assert format_error(3) == "E3"\nE       AssertionError: assert \'E03\' == \'E3\'';
    expect(errorKeyLine(code)).toBe("E       AssertionError: assert 'E03' == 'E3'");
    const thrown = "        throw new Error('unreachable');\n        ^\nError: connect ECONNREFUSED 127.0.0.1:5432";
    expect(errorKeyLine(thrown)).toBe('Error: connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('ranks an error-shaped line above the lines that mention errors, wherever it sits', () => {
    const passing = Array.from({ length: 300 }, (_, n) => `test_error_handling_${n} PASSED`).join('\n');
    expect(errorKeyLine(`Exit code 1\n${passing}\nKeyError: 'currency'`)).toBe("KeyError: 'currency'");
    expect(errorKeyLine(`${passing}\nsrc/a.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.`)).toContain('error TS2345');
  });
});
