/**
 * Accounting over the recorded Claude Code sessions in test/fixtures/claude-code: every number
 * the manifests hold must come out exactly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UsageTotals } from '../../../../shared/protocol/sessions.js';
import { computeSessionAccounting } from '../../../../shared/transcript/accounting.js';
import { activeConversation } from '../../../../shared/transcript/conversation.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import type { Manifest, ManifestUsage } from '../../../helpers/fixtures.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/claude-code');
const NEWLINE = 0x0a;

interface Transcript {
  entries: IndexedEntry[];
  /** The raw bytes, to read an entry's content back by offset. */
  bytes: Buffer;
}

/** Splits a transcript into lines with their real byte offsets, as the ingest does. */
function readTranscript(path: string): Transcript {
  const bytes = readFileSync(path);
  const entries: IndexedEntry[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    const stop = end < 0 ? bytes.length : end;
    if (stop > start) {
      const entry = parseEntry(JSON.parse(bytes.subarray(start, stop).toString('utf8')), start, stop - start);
      if (entry === null) throw new Error(`${path}@${start}: not an object`);
      entries.push(entry);
    }
    start = stop + 1;
  }
  return { entries, bytes };
}

function rawLine(transcript: Transcript, entry: IndexedEntry): Record<string, unknown> {
  return JSON.parse(transcript.bytes.subarray(entry.offset, entry.offset + entry.length).toString('utf8')) as Record<
    string,
    unknown
  >;
}

interface Scenario {
  manifest: Manifest;
  main: Transcript;
  sidechains: Transcript[];
}

function loadScenario(name: string): Scenario {
  const dir = join(FIXTURES, name);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  return {
    manifest,
    main: readTranscript(join(dir, manifest.transcript)),
    sidechains: manifest.subagentTranscripts.map((path) => readTranscript(join(dir, path))),
  };
}

function accountingOf(scenario: Scenario, env: Record<string, string | undefined> = {}) {
  return computeSessionAccounting(
    scenario.main.entries,
    scenario.sidechains.flatMap((transcript) => transcript.entries),
    { env },
  );
}

function asManifestUsage(totals: UsageTotals): ManifestUsage {
  return {
    input_tokens: totals.input,
    output_tokens: totals.output,
    cache_creation_input_tokens: totals.cacheCreation,
    cache_read_input_tokens: totals.cacheRead,
    ephemeral_5m_input_tokens: totals.cache5m,
    ephemeral_1h_input_tokens: totals.cache1h,
    assistantMessages: totals.assistantMessages,
  };
}

const SCENARIOS = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((dirent) => dirent.isDirectory())
  .map((dirent) => dirent.name)
  .sort();

/** The /exit command entries after interactive's last response: 245, 128 and 61 chars of text. */
const INTERACTIVE_TRAILING_TOKENS = 61 + 32 + 15;

describe('fixture scenarios', () => {
  it('finds all seven recorded scenarios', () => {
    expect(SCENARIOS).toEqual([
      'big-outputs',
      'checkpoints',
      'coding-loop',
      'compactions',
      'corrections',
      'interactive',
      'subagent',
    ]);
  });

  describe.each(SCENARIOS)('%s', (name) => {
    const scenario = loadScenario(name);
    const accounting = accountingOf(scenario);

    it('matches the manifest usage for main, sidechain and total', () => {
      expect(asManifestUsage(accounting.usage.main)).toEqual(scenario.manifest.usage.main);
      expect(asManifestUsage(accounting.usage.sidechain)).toEqual(scenario.manifest.usage.sidechain);
      expect(asManifestUsage(accounting.usage.total)).toEqual(scenario.manifest.usage.total);
    });

    it("takes the manifest's contextTokens from the last response's usage", () => {
      expect(accounting.context.usageTokens).toBe(scenario.manifest.contextTokens);
      const trailing = name === 'interactive' ? INTERACTIVE_TRAILING_TOKENS : 0;
      expect(accounting.context.estimatedTokens).toBe(trailing);
      expect(accounting.contextTokens).toBe(scenario.manifest.contextTokens + trailing);
    });

    it('reports the model, cwd and a priced cost', () => {
      expect(accounting.model).toBe(scenario.manifest.model);
      expect(accounting.cwd).toBe(scenario.manifest.cwd);
      expect(accounting.usage.total.costUsd).toBeGreaterThan(0);
      expect(accounting.threshold.state).toBe('ok');
      expect(accounting.compactions.count).toBe(scenario.manifest.compactions.count);
    });

    it('keeps every main-thread response on the active conversation', () => {
      const active = activeConversation(scenario.main.entries);
      const boundaryAt = active.boundary?.offset ?? -1;
      const responsesInFile = new Set(
        scenario.main.entries.filter((e) => e.type === 'assistant' && e.offset > boundaryAt).map((e) => e.uuid),
      );
      const responsesActive = new Set(
        active.entries.filter((e) => e.type === 'assistant' && e.offset > boundaryAt).map((e) => e.uuid),
      );
      expect(responsesActive).toEqual(responsesInFile);
      // And every tool result of the conversation, including those of parallel calls.
      const results = scenario.main.entries.filter((e) => e.toolResults.length > 0 && e.offset > boundaryAt);
      expect(results.every((e) => active.entries.includes(e))).toBe(true);
    });
  });
});

describe('compactions scenario', () => {
  const scenario = loadScenario('compactions');
  const accounting = accountingOf(scenario);
  const boundaries = scenario.main.entries.filter((entry) => entry.compact !== null);

  it('counts both boundaries with their triggers and reports the last one', () => {
    expect(boundaries.map((entry) => entry.compact?.trigger)).toEqual(scenario.manifest.compactions.triggers);
    expect(accounting.compactions).toEqual({
      count: 2,
      lastTrigger: 'auto',
      lastPreTokens: 189_483,
      lastPostTokens: 1_652,
    });
  });

  // Each boundary records Claude Code's own context estimate just before it compacted: the
  // estimate over the entries written before the boundary must reproduce it.
  it.each([0, 1])("reproduces boundary %i's preTokens from the entries before it", (index) => {
    const boundary = boundaries[index];
    if (!boundary) throw new Error('missing boundary');
    const before = scenario.main.entries.filter((entry) => entry.offset < boundary.offset);
    const estimate = computeSessionAccounting(before, [], { env: {} });
    expect(estimate.contextTokens).toBe(boundary.compact?.preTokens);
  });

  it('starts the active conversation at the auto boundary, its summary, then the preserved messages', () => {
    const active = activeConversation(scenario.main.entries);
    const [boundary, summary, head, tail] = active.entries;
    expect(active.end).toBe('boundary');
    expect(boundary?.compact?.trigger).toBe('auto');
    expect(summary?.isCompactSummary).toBe(true);
    const summaryText = (rawLine(scenario.main, summary as IndexedEntry).message as { content: string }).content;
    expect(summaryText).toContain(scenario.manifest.compactions.boundaries[1]?.summary.slice(0, 200));
    // The kept response and prompt sit before the boundary in the file.
    expect(head?.uuid).toBe(boundary?.compact?.preservedSegment?.headUuid);
    expect(tail?.uuid).toBe(boundary?.compact?.preservedSegment?.tailUuid);
    expect((head?.offset ?? 0) < (boundary?.offset ?? 0)).toBe(true);
    // Nothing of the first compaction's conversation is active any more.
    const firstBoundary = boundaries[0];
    expect(active.entries.filter((e) => e.offset <= (firstBoundary?.offset ?? 0))).toEqual([]);
  });

  it('after the manual compaction, splices the preserved segment between summary and resumed prompt', () => {
    const second = boundaries[1];
    if (!second) throw new Error('missing boundary');
    const active = activeConversation(scenario.main.entries.filter((entry) => entry.offset < second.offset));
    const segment = active.boundary?.compact?.preservedSegment;
    expect(active.boundary?.compact?.trigger).toBe('manual');
    expect(active.entries.slice(0, 3).map((e) => e.uuid)).toEqual([
      active.boundary?.uuid,
      segment?.anchorUuid,
      segment?.headUuid,
    ]);
  });

  it('does not count the synthetic response as an API call', () => {
    const synthetic = scenario.main.entries.filter((entry) => entry.model === '<synthetic>');
    expect(synthetic).toHaveLength(1);
    expect(accounting.usage.main.assistantMessages).toBe(19);
  });
});

describe('interactive scenario', () => {
  const scenario = loadScenario('interactive');
  const accounting = accountingOf(scenario);

  it('takes the AI title, the branch and the span of activity', () => {
    expect(accounting.title).toBe(scenario.manifest.title);
    expect(accounting.gitBranch).toBe('main');
    expect(accounting.firstActivity).not.toBeNull();
    expect(Date.parse(accounting.lastActivity ?? '')).toBeGreaterThan(Date.parse(accounting.firstActivity ?? ''));
  });

  it('lets a custom title win over a later AI title', () => {
    const custom = parseEntry({ type: 'custom-title', customTitle: 'My name for it', sessionId: 's' }, 0, 1);
    const ai = parseEntry({ type: 'ai-title', aiTitle: 'A later AI title', sessionId: 's' }, 1, 1);
    if (!custom || !ai) throw new Error('parse failed');
    const result = computeSessionAccounting([...scenario.main.entries, custom, ai], [], { env: {} });
    expect(result.title).toBe('My name for it');
  });
});

describe('subagent scenario', () => {
  const scenario = loadScenario('subagent');
  const accounting = accountingOf(scenario);

  it('adds up each sub-agent transcript to its agent in the manifest', () => {
    const perFile = scenario.sidechains.map((transcript) =>
      asManifestUsage(computeSessionAccounting([], transcript.entries, { env: {} }).usage.sidechain),
    );
    const expected = scenario.manifest.sidechain.agents.map((agent) => agent.usage);
    const byOutput = (a: ManifestUsage, b: ManifestUsage) => a.output_tokens - b.output_tokens;
    expect(perFile.sort(byOutput)).toEqual(expected.sort(byOutput));
  });

  it('keeps sidechains out of the context and the model, but in activity and cost', () => {
    expect(accounting.contextTokens).toBe(scenario.manifest.contextTokens);
    expect(accounting.entries.sidechain).toBe(scenario.sidechains.reduce((n, t) => n + t.entries.length, 0));
    const mainCost = accounting.usage.main.costUsd ?? 0;
    const sidechainCost = accounting.usage.sidechain.costUsd ?? 0;
    expect(sidechainCost).toBeGreaterThan(0);
    expect(accounting.usage.total.costUsd).toBeCloseTo(mainCost + sidechainCost, 12);
    const lastSidechain = scenario.sidechains
      .flatMap((t) => t.entries)
      .map((e) => Date.parse(e.timestamp ?? ''))
      .filter(Number.isFinite);
    expect(Date.parse(accounting.lastActivity ?? '')).toBeGreaterThanOrEqual(Math.max(...lastSidechain));
  });

  it('counts sidechain entries written into the main file (older versions) as sidechain usage', () => {
    const moved = scenario.sidechains.flatMap((t) => t.entries);
    const result = computeSessionAccounting([...scenario.main.entries, ...moved], [], { env: {} });
    expect(asManifestUsage(result.usage.main)).toEqual(scenario.manifest.usage.main);
    expect(asManifestUsage(result.usage.sidechain)).toEqual(scenario.manifest.usage.sidechain);
    expect(result.contextTokens).toBe(scenario.manifest.contextTokens);
  });
});
