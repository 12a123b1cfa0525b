/**
 * bench/forecast.js (`npm run forecast`), the check of usage.status's forecasts against a replayed
 * session (issue 31's closing note), kept working: it replays the first 16 turns of the recorded
 * Claude Code session (test/fixtures/forecast/auto-compact: the context passes the auto-compact
 * point at turn 13, Claude Code compacts at the start of turn 14) into a real memd and prints the
 * predictions beside what happened, as JSON.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runNode } from '../helpers/sandbox.js';

/** memd's start, 16 turns indexed and asked about, and its stop: a few seconds; the margin is for a loaded machine. */
const REPLAY_TIMEOUT_MS = 60_000;

interface Row {
  turn: number;
  context: number;
  autoCompactAt: number;
  compactBoundary: boolean;
  predictedTurns: number | null;
  actualTurns: number | null;
  errorTurns: number | null;
  usedPercent: number;
  limitErrorMinutes: number | null;
}

describe('the forecast replay (bench/forecast.js)', () => {
  it(
    'replays the recorded session turn by turn and sets the forecasts beside the turn the context passed the auto-compact point and the time the plan model reached 100%',
    async () => {
      const run = await runNode([join(ROOT, 'bench/forecast.js'), '--turns', '16', '--json'], process.env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as {
        rows: Row[];
        compactions: { contextPassedAt: number[]; boundaryAt: number[] };
        summary: { autoCompactTurns: { n: number; medianAbs: number | null }; limitMinutes: { n: number } };
        planModel: { reachedAt: string | null };
      };
      expect(result.rows.map((row) => row.turn)).toEqual([...Array(16).keys()].map((n) => n + 1));
      // What Claude Code did, as memd indexed it: 67,000 with CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 on Sonnet 4.5.
      expect(result.rows.every((row) => row.autoCompactAt === 67_000)).toBe(true);
      expect(result.compactions).toEqual({ contextPassedAt: [13], boundaryAt: [14] });
      // Turn 12 is one turn before the context passes: predicted beside an actual of 0 whole turns.
      const turn12 = result.rows[11] as Row;
      expect(turn12.actualTurns).toBe(0);
      expect(turn12.predictedTurns).not.toBeNull();
      expect(turn12.errorTurns).toBe((turn12.predictedTurns as number) - 0);
      expect(result.summary.autoCompactTurns.n).toBeGreaterThan(5);
      // The plan model's window fills within the replayed turns, and memd forecast it before then.
      expect(result.planModel.reachedAt).not.toBeNull();
      expect(result.rows.at(-1)?.usedPercent).toBe(100);
      expect(result.summary.limitMinutes.n).toBeGreaterThan(0);
    },
    REPLAY_TIMEOUT_MS,
  );
});
