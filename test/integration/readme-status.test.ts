/**
 * README's "Run it" shows `memctl status` over the coding-loop fixture (issue 29 item 4: it said
 * schema 2 when memd was at 15). This runs that command for real and holds the sample to it: the
 * same rows in the same order, each the same words around its figures and paths, the schema memd
 * is at, and the sessions table's header. Figures, paths and the session row's age may differ.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../daemon/store/migrations.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, makeSandbox, ROOT, runMemctl, startDaemon } from '../helpers/sandbox.js';

/** The block README prints under `memctl status`. */
function readmeSample(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /```sh\nmemctl status\n```\n\n```\n([\s\S]*?)\n```/.exec(readme);
  if (match?.[1] === undefined)
    throw new Error('README has no `memctl status` sample after a ```sh memctl status``` block');
  return match[1].split('\n');
}

/** A daemon row's words, its figures and paths taken out: what must agree between sample and output. */
const shape = (line: string) =>
  line
    .replace(/\/\S*/g, 'PATH')
    .replace(/\d+(\.\d+)*/g, 'N')
    .trimEnd();

/** The daemon's part: from the first line to the blank line before the sessions table. */
const daemonPart = (lines: string[]) => lines.slice(0, lines.indexOf(''));
const tableHeader = (lines: string[]) => lines[lines.indexOf('') + 1];

describe("README's memctl status sample", () => {
  it('says the schema memd is at', () => {
    const schema = readmeSample()
      .map((line) => /\(schema (\d+)\)/.exec(line)?.[1])
      .find((found) => found !== undefined);
    expect(Number(schema)).toBe(SCHEMA_VERSION);
  });

  it('has the rows, words and table that memctl status prints over the coding-loop fixture', async () => {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    await startDaemon(sandbox);
    let printed: string[] = [];
    // The sample is taken once the session is read and archived, as a user sees it after a moment.
    await eventually(async () => {
      const result = await runMemctl(sandbox, ['status']);
      printed = result.stdout.trimEnd().split('\n');
      return (
        result.code === 0 &&
        printed.some((line) => line.includes('49 entries')) &&
        printed.some((line) => /^ {2}archive +live, 1 sessions/.test(line))
      );
    }, 'the fixture ingested and archived');
    const sample = readmeSample();
    expect(daemonPart(sample).map(shape)).toEqual(daemonPart(printed).map(shape));
    expect(tableHeader(sample)).toBe(tableHeader(printed));
    expect(sample.slice(sample.indexOf('') + 2).map((line) => line.slice(0, 8))).toEqual(['4be41908']);
  });
});
