/**
 * Transcripts for the usage report's tests (issue 18), in shapes real disks hold, written by the
 * tests themselves (real-shapes.ts): Claude Code 2.1.3x responses split over several entries whose
 * early `output_tokens` are placeholders, one of them split across midnight UTC and one across
 * midnight in India (18:30 UTC); a 1.0.x-style resumed session whose file repeats its parent's
 * responses; a sub-agent replay of a main-thread response with more tokens (the main thread's
 * counts); a model no price table knows. Deterministic: ccusage 20.0.24's figures for these files
 * are written into test/integration/usage.test.ts.
 */
import { type Line, mainPath, subagentPath, TranscriptWriter, writeTranscript } from './real-shapes.js';

export const NIGHT_CWD = '/home/u/src/nightly';
export const BILLING_CWD = '/home/u/work/billing';
export const NIGHT_SESSION = '0a1b2c3d-1111-4e5f-8a9b-0c1d2e3f4a5b';
export const RESUMED_SESSION = '1b2c3d4e-2222-4e5f-8a9b-0c1d2e3f4a5b';
export const BILLING_SESSION = '7f6e5d4c-3333-4b2a-9c8d-7e6f5a4b3c2d';
/** A model neither memd's price table nor ccusage's knows: tokens counted, cost not. */
export const UNPRICED_MODEL = 'claude-experimental-9';

const usage = (n: number, output: number) => ({
  input: 4 + n,
  cacheWrite: 600 + 40 * n,
  cacheRead: 9_000 + 700 * n,
  output,
});

/**
 * The nightly session: four rounds from 23:59:54 UTC on 2026-03-01; each round is a response of
 * two entries (text, tool call) a second apart and its tool result, so the second round's response
 * has its placeholder entry at 23:59:59 and its final one at 00:00:00 the next day.
 */
function nightly(): { main: TranscriptWriter; agent: TranscriptWriter } {
  const main = new TranscriptWriter({
    sessionId: NIGHT_SESSION,
    cwd: NIGHT_CWD,
    version: '2.1.38',
    startMs: Date.parse('2026-03-01T23:59:54.000Z'),
  });
  main.prompt('Run the nightly import and fix what breaks');
  for (let n = 0; n < 4; n++)
    main.toolRound('Bash', { command: `npm run import -- --day ${n}` }, `imported ${n}`, usage(n, 150 + 60 * n));
  // A sub-agent that replays the first main-thread response with more output: ccusage keeps the main thread's.
  const agent = new TranscriptWriter({
    sessionId: NIGHT_SESSION,
    cwd: NIGHT_CWD,
    version: '2.1.38',
    isSidechain: true,
    agentId: 'a9a8a7a6a5a4a3a2a',
    startMs: Date.parse('2026-03-02T00:10:00.000Z'),
  });
  agent.prompt('Check the import log');
  const replayed = main.lines.find((line) => line.type === 'assistant') as Line;
  agent.raw({
    ...replayed,
    isSidechain: true,
    agentId: 'a9a8a7a6a5a4a3a2a',
    uuid: 'a9a8a7a6-0000-4000-8000-000000000999',
    message: {
      ...(replayed.message as Line),
      usage: { ...((replayed.message as Line).usage as Line), output_tokens: 5_000 },
    },
  });
  agent.toolRound('Grep', { pattern: 'ERROR' }, 'none', usage(7, 90));
  return { main, agent };
}

/** A 1.0.x resume: a new session file that starts with a copy of its parent's lines, then goes on. */
function resumed(parent: TranscriptWriter): TranscriptWriter {
  const main = new TranscriptWriter({
    sessionId: RESUMED_SESSION,
    cwd: NIGHT_CWD,
    version: '1.0.58',
    startMs: Date.parse('2026-03-02T08:00:00.000Z'),
  });
  for (const line of parent.lines) main.raw({ ...line, sessionId: RESUMED_SESSION });
  main.prompt('Now the weekly export');
  main.toolRound('Read', { file_path: `${NIGHT_CWD}/export.ts` }, 'export const weekly = 1;', usage(5, 410));
  return main;
}

/** Billing: across midnight in India (18:30 UTC), on Opus, then one response of an unpriced model. */
function billing(): TranscriptWriter {
  const main = new TranscriptWriter({
    sessionId: BILLING_SESSION,
    cwd: BILLING_CWD,
    version: '2.1.39',
    model: 'claude-opus-4-6',
    startMs: Date.parse('2026-03-02T18:29:54.000Z'),
  });
  main.prompt('Reconcile the March invoices');
  for (let n = 0; n < 3; n++)
    main.toolRound(
      'Read',
      { file_path: `${BILLING_CWD}/march-${n}.csv` },
      'id,total\n1,10',
      usage(10 + n, 300 + 25 * n),
    );
  const { entries } = main.response([{ type: 'text', text: 'Reconciled.' }], usage(20, 120));
  for (const entry of entries) (entry.message as Line).model = UNPRICED_MODEL;
  return main;
}

/** Writes the corpus under `projectsDir`. */
export function writeUsageCorpus(projectsDir: string): void {
  const { main, agent } = nightly();
  writeTranscript(mainPath(projectsDir, NIGHT_CWD, NIGHT_SESSION), main);
  writeTranscript(subagentPath(projectsDir, NIGHT_CWD, NIGHT_SESSION, 'agent-a9a8a7a6a5a4a3a2a'), agent);
  writeTranscript(mainPath(projectsDir, NIGHT_CWD, RESUMED_SESSION), resumed(main));
  writeTranscript(mainPath(projectsDir, BILLING_CWD, BILLING_SESSION), billing());
}
