/**
 * docs/architecture.md says what daemon/ holds and who may call whom as MAY_CALL has it; and a fake
 * doc that is stale in each way, so that a passing check is known to be able to fail.
 * `MEMD_FIX_DOCS=1` rewrites the doc's MAY_CALL block from the table instead of comparing it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docViolations, MAY_CALL_BEGIN, MAY_CALL_END, renderMayCall, withMayCall } from './architecture-doc.js';
import { MAY_CALL, type MayCallTable } from './may-call.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'architecture.md');

/** daemon/'s folders as the architecture check names them. */
function daemonFolders(): string[] {
  const dirs = readdirSync(join(ROOT, 'daemon'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  return existsSync(join(ROOT, 'daemon', 'main.ts')) ? [...dirs, '(main)'] : dirs;
}

describe('docs/architecture.md', () => {
  it('has a paragraph for every daemon folder, nothing stale, and MAY_CALL as the table has it', () => {
    if (process.env.MEMD_FIX_DOCS === '1') {
      const fixed = withMayCall(readFileSync(DOC, 'utf8'), MAY_CALL);
      if (fixed !== null) writeFileSync(DOC, fixed);
    }
    const violations = docViolations(readFileSync(DOC, 'utf8'), daemonFolders(), MAY_CALL);
    if (violations.length > 0)
      console.log(
        `docs/architecture.md:\n${violations.join('\n')}\n\nMAY_CALL renders as:\n${renderMayCall(MAY_CALL)}`,
      );
    expect(violations).toEqual([]);
  });
});

const FAKE_TABLE: MayCallTable = {
  log: { layer: 'infrastructure', calls: {} },
  archive: { layer: 'domain', calls: { log: '' } },
  '(main)': { layer: 'domain', calls: { archive: 'wires it' } },
};

/** Stale in each way once: usage/ has no paragraph, archive is "not built", gone/ is named, the block is old. */
const FAKE_DOC = `# How memd is put together
- **daemon/** is wired in \`daemon/main.ts\`.
- **log/** writes lines.
- **archive/** keeps transcripts; the design's usage book is planned.
- **main.ts** builds the parts; \`daemon/gone/\` holds the rest.

The daemon's folders are the contract's; archive is not built yet, with these departures.

${MAY_CALL_BEGIN}
- \`archive/\` (domain) may call log, fs.
${MAY_CALL_END}
`;

describe('a doc that is stale in each way', () => {
  const violations = docViolations(FAKE_DOC, ['log', 'archive', 'usage', '(main)'], FAKE_TABLE);

  it('misses a paragraph', () => {
    expect(violations).toContainEqual('no paragraph `- **usage/**` for daemon/usage');
  });

  it('names a folder that does not exist', () => {
    expect(violations).toContainEqual('names daemon/gone/, which does not exist');
  });

  it('says a built folder is not built, wherever the clause says it', () => {
    expect(violations.filter((v) => v.startsWith('says '))).toEqual([
      expect.stringContaining('says usage is not there'),
      expect.stringContaining(
        'says archive is not there, and daemon/archive/ exists: "archive is not built yet, with these departures."',
      ),
    ]);
  });

  it('has an old MAY_CALL block, which the fix renders afresh', () => {
    expect(violations).toContainEqual(expect.stringContaining('its MAY_CALL block differs'));
    const fixed = withMayCall(FAKE_DOC, FAKE_TABLE) ?? '';
    expect(fixed).toContain('- `archive/` (domain) may call log.\n');
    expect(fixed).toContain('- `main.ts` (domain) may call archive (wires it).\n');
    expect(fixed).toContain('- `log/` (infrastructure) calls no other daemon folder.\n');
    expect(docViolations(fixed, ['log', 'archive', 'usage', '(main)'], FAKE_TABLE)).not.toContainEqual(
      expect.stringContaining('MAY_CALL block'),
    );
  });

  it('reports nothing else, and a doc without a block says so', () => {
    expect(violations).toHaveLength(5);
    expect(docViolations('# nothing', [], FAKE_TABLE)).toEqual([expect.stringContaining('has no MAY_CALL block')]);
  });
});
