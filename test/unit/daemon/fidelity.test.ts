/**
 * Issue 32's measurement (docs/fidelity.md): what the offline session memory, the offline
 * compaction summary and the offline handoff keep of a session's facts (recall) and whether what
 * they state is supported by the transcript (precision), per kind, over the recorded fixtures and
 * generated sessions with seeded facts. The figures are printed; the targets are asserted.
 *
 * EXPECTED_MISSES names the targets today's code misses: each is an `it.fails`, so the fix that
 * meets one fails this test until its line is removed here. MEMD_FIDELITY_STRICT=1 asserts every
 * target (what `npm run bench -- fidelity` runs).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineSummary } from '../../../daemon/compaction/offline-summary.js';
import { offlineSessionMemory } from '../../../daemon/extraction/offline-summary.js';
import { handoffFacts } from '../../../daemon/handoff/facts.js';
import type { GitFacts } from '../../../daemon/handoff/git.js';
import { offlineNarrative } from '../../../daemon/handoff/offline.js';
import type { LoadedEntry } from '../../../daemon/transcripts/entries.js';
import { readTranscript } from '../../../daemon/transcripts/facts.js';
import { renderHandoff } from '../../../shared/handoff/render.js';
import { ingestFixture } from '../../helpers/compact.js';
import {
  addScores,
  type FactTruth,
  fixtureTruth,
  KINDS,
  type Kind,
  type Score,
  scoreTable,
  scoreText,
  seededTruth,
} from '../../helpers/fact-score.js';
import { SCENARIOS } from '../../helpers/ingest.js';
import { loadedOf, seededSession } from '../../helpers/seeded-facts.js';

/** Generated sessions per run: enough seeds to vary names and numbers, cheap in-process. */
const GENERATED = Number(process.env.MEMD_FIDELITY_SESSIONS ?? 40);
const RECALL_TARGET = 0.95; // issue 32: recall ≥ 95 % per kind
const PRECISION_TARGET = 0.98; // issue 32: precision ≥ 98 % per kind
const SURFACES = ['memory', 'compaction', 'handoff'] as const;
type Surface = (typeof SURFACES)[number];
type Measure = 'recall' | 'precision';
const CORPORA = ['fixtures', 'generated'] as const;
type Corpus = (typeof CORPORA)[number];

/**
 * Targets main misses on 2026-12-05 (the BEFORE table in docs/fidelity.md). Remove a line when
 * the change that meets it lands: its it.fails then fails.
 */
const EXPECTED_MISSES = new Set<string>([
  'memory files recall (fixtures)',
  'memory errors precision (fixtures)',
  'compaction files recall (fixtures)',
  'handoff files recall (fixtures)',
  'memory files recall (generated)',
  'memory errors precision (generated)',
  'compaction files recall (generated)',
  'compaction decisions recall (generated)',
  'handoff files precision (generated)',
  'handoff rules recall (generated)',
  'handoff decisions recall (generated)',
]);
const STRICT = process.env.MEMD_FIDELITY_STRICT === '1';

interface Case {
  name: string;
  loaded: LoadedEntry[];
  truth: FactTruth;
  git: GitFacts | null;
  sessionId: string;
}

function documents(item: Case): Record<Surface, string> {
  const main = readTranscript(item.loaded);
  const cwd = item.truth.cwd;
  const facts = handoffFacts({ main, sidechains: [], git: item.git, cwd, realCwd: cwd });
  const narrative = offlineNarrative({ main, facts, sessionId: item.sessionId, cwd });
  return {
    memory: offlineSessionMemory({ loaded: item.loaded }),
    compaction: offlineSummary(item.loaded),
    handoff: renderHandoff({
      sessionId: item.sessionId,
      cwd,
      trigger: 'manual',
      generatedAt: '2026-12-05T00:00:00.000Z',
      sessionStarted: null,
      summarizer: 'offline',
      narrative,
      facts,
    }),
  };
}

const scores: Record<Corpus, Record<Surface, Score[]>> = {
  fixtures: { memory: [], compaction: [], handoff: [] },
  generated: { memory: [], compaction: [], handoff: [] },
};

function measure(corpus: Corpus, item: Case): void {
  const texts = documents(item);
  for (const surface of SURFACES) scores[corpus][surface].push(scoreText(texts[surface], item.truth));
}

const total = (surface: Surface) => addScores([...scores.fixtures[surface], ...scores.generated[surface]]);
const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

describe('fidelity of the offline summaries (issue 32)', () => {
  beforeAll(async () => {
    for (const scenario of SCENARIOS) {
      const fixture = await ingestFixture(scenario);
      try {
        const { loaded } = fixture.conversation();
        measure('fixtures', {
          name: scenario,
          loaded,
          truth: fixtureTruth(scenario),
          git: null,
          sessionId: fixture.sessionId,
        });
      } finally {
        fixture.close();
      }
    }
    for (let seed = 1; seed <= GENERATED; seed++) {
      const session = seededSession(seed);
      measure('generated', {
        name: `seed ${seed}`,
        loaded: loadedOf(session.writer),
        truth: seededTruth(session),
        git: session.git,
        sessionId: session.sessionId,
      });
    }
  }, 120_000);

  afterAll(() => {
    const tables = SURFACES.flatMap((surface) => [
      scoreTable(`${surface}: fixtures (${scores.fixtures[surface].length})`, addScores(scores.fixtures[surface])),
      scoreTable(`${surface}: generated (${scores.generated[surface].length})`, addScores(scores.generated[surface])),
      scoreTable(`${surface}: all`, total(surface)),
    ]);
    const examples = SURFACES.flatMap((surface) =>
      KINDS.flatMap((kind) => {
        const { missed, unsupported } = total(surface)[kind];
        return [
          ...(missed.length > 0 ? [`  ${surface} ${kind} missed, e.g. ${JSON.stringify(missed[0])}`] : []),
          ...(unsupported.length > 0
            ? [`  ${surface} ${kind} unsupported, e.g. ${JSON.stringify(unsupported[0])}`]
            : []),
        ];
      }),
    );
    const report = [
      `Fidelity (docs/fidelity.md): ${SCENARIOS.length} recorded fixtures, ${GENERATED} generated sessions`,
      ...tables,
      // Slot for issue 32 item 2 (engineer S, wt-S): the survival score of each compaction, memd's
      // and Claude Code's own, goes here once daemon/compaction has it.
      'survival: not measured here yet (the survival score of item 2 is on wt-S)',
      'Examples:',
      ...examples,
    ].join('\n');
    console.log(report);
    const out = process.env.MEMD_FIDELITY_REPORT;
    if (out !== undefined && out !== '') writeFileSync(out, `${report}\n`);
  });

  for (const corpus of CORPORA) {
    for (const surface of SURFACES) {
      for (const kind of KINDS satisfies readonly Kind[]) {
        for (const which of ['recall', 'precision'] satisfies Measure[]) {
          const name = `${surface} ${kind} ${which} (${corpus})`;
          const target = which === 'recall' ? RECALL_TARGET : PRECISION_TARGET;
          const test = !STRICT && EXPECTED_MISSES.has(name) ? it.fails : it;
          test(`${name} ≥ ${target * 100} %${test === it ? '' : ', an expected miss'}`, () => {
            const { found, seeded, supported, stated, missed, unsupported } = addScores(scores[corpus][surface])[kind];
            const value = which === 'recall' ? ratio(found, seeded) : ratio(supported, stated);
            const examples =
              which === 'recall'
                ? `missed ${JSON.stringify(missed.slice(0, 3))}`
                : `unsupported ${JSON.stringify(unsupported.slice(0, 3))}`;
            expect(value, `${name}: ${examples}`).toBeGreaterThanOrEqual(target);
          });
        }
      }
    }
  }
});
