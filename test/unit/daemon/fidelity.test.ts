/**
 * Issue 32's measurement (docs/fidelity.md): what the offline session memory, the offline
 * compaction summary and the offline handoff keep of a session's facts (recall) and whether what
 * they state is supported by the transcript (precision), per kind, over the recorded fixtures and
 * generated sessions with seeded facts. The figures are printed; the targets are asserted.

 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineSummary } from '../../../daemon/compaction/offline-summary.js';
import { sessionFacts, survivalOf } from '../../../daemon/compaction/survival.js';
import { offlineSessionMemory } from '../../../daemon/extraction/offline-summary.js';
import { handoffFacts } from '../../../daemon/handoff/facts.js';
import type { GitFacts } from '../../../daemon/handoff/git.js';
import { offlineNarrative } from '../../../daemon/handoff/offline.js';
import { loadIndexed } from '../../../daemon/handoff/transcript.js';
import { loadEarlierCalls } from '../../../daemon/transcripts/earlier.js';
import type { LoadedEntry } from '../../../daemon/transcripts/entries.js';
import { type Call, readTranscript } from '../../../daemon/transcripts/facts.js';
import { renderHandoff } from '../../../shared/handoff/render.js';
import type { Survival } from '../../../shared/protocol/compaction.js';
import { parseEntry } from '../../../shared/transcript/parse.js';
import { isRecord } from '../../../shared/values.js';
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
import { manifest } from '../../helpers/fixtures.js';
import { FIXTURES, SCENARIOS } from '../../helpers/ingest.js';
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

interface Case {
  name: string;
  /** The active conversation: what the session memory and the compaction summarize. */
  loaded: LoadedEntry[];
  /** The whole main transcript as the handoff reads it (daemon/handoff/transcript.ts), compactions included. */
  whole: LoadedEntry[];
  /** The file calls before the last compact_boundary, as the daemon passes them (transcripts/earlier.ts). */
  earlier: Call[];
  truth: FactTruth;
  git: GitFacts | null;
  sessionId: string;
}

function documents(item: Case): Record<Surface, string> {
  const main = readTranscript(item.whole);
  const cwd = item.truth.cwd;
  const facts = handoffFacts({ main, sidechains: [], git: item.git, cwd, realCwd: cwd });
  const narrative = offlineNarrative({ main, facts, sessionId: item.sessionId, cwd });
  return {
    memory: offlineSessionMemory({ loaded: item.loaded, earlier: item.earlier }),
    compaction: offlineSummary(item.loaded, undefined, item.earlier),
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

/**
 * Survival (issue 32 item 2, daemon/compaction/survival.ts): of the session's facts, how many the
 * text the model sees next carries. memd's offline compaction is scored on its summary alone (the
 * kept messages would add to it: a lower bound); Claude Code's own compactions in the fixtures on
 * the summary it wrote at each compact_boundary, against the facts before that boundary.
 */
const survivals: Record<'memd' | 'claude-code', Survival[]> = { memd: [], 'claude-code': [] };

function measure(corpus: Corpus, item: Case): void {
  const texts = documents(item);
  for (const surface of SURFACES) scores[corpus][surface].push(scoreText(texts[surface], item.truth));
  survivals.memd.push(survivalOf(sessionFacts(readTranscript(item.loaded)), texts.compaction));
}

/** Claude Code's compactions in a fixture's whole transcript: the facts before each boundary against its summary. */
function claudeCodeSurvivals(scenario: string): Survival[] {
  const lines = readFileSync(join(FIXTURES, scenario, manifest(scenario).transcript), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const loaded = lines.flatMap((line): LoadedEntry[] => {
    const raw: unknown = JSON.parse(line);
    const entry = parseEntry(raw, 0, 0);
    return entry === null || !isRecord(raw) ? [] : [{ entry, raw }];
  });
  return loaded.flatMap(({ entry }, at) => {
    if (entry.type !== 'system' || entry.subtype !== 'compact_boundary') return [];
    const summary = loaded.slice(at + 1).find((next) => next.entry.type === 'user' && next.entry.isCompactSummary);
    if (summary === undefined) return [];
    const message = summary.raw.message;
    const content = isRecord(message) ? message.content : null;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : '')).join('\n')
          : '';
    return [survivalOf(sessionFacts(readTranscript(loaded.slice(0, at))), text)];
  });
}

function survivalLine(name: string, list: readonly Survival[], unit: string): string {
  const kept = list.reduce((sum, one) => sum + one.kept, 0);
  const all = list.reduce((sum, one) => sum + one.kept + one.lost, 0);
  const lost = list.flatMap((one) => one.items.filter((item) => !item.kept)).slice(0, 2);
  return `  ${name.padEnd(34)} kept ${kept}/${all} (${all === 0 ? 'n/a' : `${((100 * kept) / all).toFixed(1)}%`}) over ${list.length} ${unit}${lost.length > 0 ? `; lost e.g. ${lost.map((item) => `${item.kind} ${JSON.stringify(item.text)}`).join(', ')}` : ''}`;
}

const total = (surface: Surface) => addScores([...scores.fixtures[surface], ...scores.generated[surface]]);
const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

describe('fidelity of the offline summaries (issue 32)', () => {
  beforeAll(async () => {
    for (const scenario of SCENARIOS) {
      const fixture = await ingestFixture(scenario);
      try {
        const { loaded, file, entries, active } = fixture.conversation();
        measure('fixtures', {
          name: scenario,
          loaded,
          whole: await loadIndexed(file.path, entries, false),
          earlier: loadEarlierCalls(file.path, entries, active),
          truth: fixtureTruth(scenario),
          git: null,
          sessionId: fixture.sessionId,
        });
      } finally {
        fixture.close();
      }
      survivals['claude-code'].push(...claudeCodeSurvivals(scenario));
    }
    for (let seed = 1; seed <= GENERATED; seed++) {
      const session = seededSession(seed);
      const loaded = loadedOf(session.writer);
      measure('generated', {
        name: `seed ${seed}`,
        loaded,
        whole: loaded,
        earlier: [], // no compact_boundary in a generated session: the daemon reads none
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
      'survival (daemon/compaction/survival.ts: facts the text the model sees next carries):',
      survivalLine("memd's offline summary (alone)", survivals.memd, 'sessions'),
      survivalLine("Claude Code's own (fixtures)", survivals['claude-code'], 'compact_boundary entries'),
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
          it(`${name} ≥ ${target * 100} %`, () => {
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
