// `npm run bench -- fidelity` (issue 32, docs/fidelity.md): recall and precision per fact kind of
// the offline session memory, compaction summary and handoff, over the recorded fixtures and a
// generated corpus with seeded facts. The measurement is the vitest file below (its matcher and
// generator are test helpers in TypeScript); here it runs over a larger corpus; it ends with the survival score of memd's offline compaction summary
// and of Claude Code's own compactions in the fixtures. Fails when a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.js';

const TEST = 'test/unit/daemon/fidelity.test.ts';
const SESSIONS = 200; // generated sessions: five times the test's, still a few seconds in-process
const DEADLINE_MS = 300_000; // the run is in-process and takes seconds; a stuck one fails

export async function benchFidelity() {
  const dir = mkdtempSync(join(tmpdir(), 'memd-bench-fidelity-'));
  const report = join(dir, 'report.txt');
  try {
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', TEST], {
      cwd: ROOT,
      env: {
        ...process.env,
        MEMD_FIDELITY_SESSIONS: String(SESSIONS),
        MEMD_FIDELITY_REPORT: report,
        NO_COLOR: '1',
      },
      encoding: 'utf8',
      timeout: DEADLINE_MS,
    });
    let table;
    try {
      table = readFileSync(report, 'utf8');
    } catch {
      console.error(`fidelity: no report; vitest said:\n${run.stdout}\n${run.stderr}`);
      return false;
    }
    console.log(table.trimEnd());
    const missed = (run.stdout.match(/^\s*× .*$/gm) ?? []).map((line) => line.trim().replace(/\s+\d+ms$/, ''));
    console.log(
      missed.length === 0
        ? 'fidelity: every target met (recall >= 95 %, precision >= 98 % per kind, surface and corpus)'
        : `fidelity: ${missed.length} targets missed:\n  ${missed.join('\n  ')}`,
    );
    return run.status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
