/**
 * The report model from real recorded sessions (ingested into a temporary index, read back through
 * the export's own source): the conversation across compactions, tool calls with their results,
 * files touched, failed calls, the chart's points and marks, and the budget's cuts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { conversationChain } from '../../../../daemon/export/chain.js';
import { callLabel, cutText } from '../../../../daemon/export/conversation.js';
import { buildReport, type ReportDeps } from '../../../../daemon/export/report.js';
import { openMainTranscript } from '../../../../daemon/export/source.js';
import { summaryOf } from '../../../../daemon/sessions/summary.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';
import type { ConversationItem } from '../../../../shared/export/model.js';
import { computeSessionAccounting } from '../../../../shared/transcript/accounting.js';
import { activeConversation } from '../../../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { type IngestedFixture, ingestFixture } from '../../../helpers/compact.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

const open: IngestedFixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.close();
});

async function report(scenario: string, limits?: ReportDeps['limits']) {
  const fixture = await ingestFixture(scenario);
  open.push(fixture);
  const transcripts = createTranscripts({ db: fixture.store.db });
  const { files, main, sidechain, compaction } = await transcripts.sessionEntries(fixture.sessionId);
  const summary = (sessionId: string) =>
    summaryOf(sessionId, files, computeSessionAccounting(main, sidechain, { env: {}, compactionEntries: compaction }));
  const deps: ReportDeps = { transcripts, summary, env: {}, ...(limits === undefined ? {} : { limits }) };
  const source = await openMainTranscript(transcripts)(fixture.sessionId);
  try {
    return {
      fixture,
      transcripts,
      model: await buildReport(deps, source, fixture.sessionId, new AbortController().signal),
    };
  } finally {
    await source.close();
  }
}

const ofKind = <K extends ConversationItem['kind']>(items: readonly ConversationItem[], kind: K) =>
  items.filter((item): item is Extract<ConversationItem, { kind: K }> => item.kind === kind);

describe('the conversation across compactions', () => {
  it('holds every segment: both boundaries, the prompts before and after them', async () => {
    const { fixture, transcripts, model } = await report('compactions');
    const { main } = await transcripts.sessionEntries(fixture.sessionId);
    const chain = conversationChain(main);
    expect(chain.filter((entry) => entry.compact !== null)).toHaveLength(2);
    // The active conversation alone starts at the last boundary.
    expect(activeConversation(main).entries.filter((entry) => entry.compact !== null)).toHaveLength(1);
    const items = model.conversation.items;
    expect(ofKind(items, 'compaction').map((item) => item.trigger)).toEqual(fixture.manifest.compactions.triggers);
    expect(ofKind(items, 'summary')).toHaveLength(2);
    const prompts = ofKind(items, 'prompt').map((item) => item.text);
    for (const prompt of (fixture.manifest as unknown as { prompts: { text: string }[] }).prompts)
      expect(prompts).toContain(prompt.text);
    // In the order they were written: the first prompt first, the last reply last.
    expect(items[0]?.kind).toBe('prompt');
    expect(items[items.length - 1]?.kind).toBe('assistant');
    expect(model.chart.compactions.map((mark) => mark.trigger)).toEqual(['manual', 'auto']);
  });

  it('draws the /compact prompt before the compaction it caused, then the summary (issue 29)', async () => {
    const { model } = await report('compactions');
    const items = model.conversation.items;
    const marker = items.findIndex((item) => item.kind === 'compaction' && item.trigger === 'manual');
    const command = items.findIndex((item) => item.kind === 'prompt' && item.text.startsWith('/compact'));
    expect(marker).toBeGreaterThan(0);
    expect(command).toBeGreaterThanOrEqual(0);
    expect(command).toBeLessThan(marker);
    // The summary Claude Code wrote for it still follows the marker.
    expect(items[marker + 1]?.kind).toBe('summary');
  });

  it('gives every tool call its result, and the files each touched', async () => {
    const { fixture, model } = await report('compactions');
    const calls = ofKind(model.conversation.items, 'tool').map((item) => item.call);
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.every((call) => call.result !== null)).toBe(true);
    expect(calls.find((call) => call.name === 'Bash')?.label).toBe('python3 -m unittest -q');
    const { read, edited, written } = fixture.manifest.files;
    expect(new Set(model.files.filter((file) => file.reads > 0).map((file) => file.path))).toEqual(new Set(read));
    expect(new Set(model.files.filter((file) => file.edits > 0).map((file) => file.path))).toEqual(new Set(edited));
    expect(new Set(model.files.filter((file) => file.writes > 0).map((file) => file.path))).toEqual(new Set(written));
    expect(model.errors).toEqual([]);
  });

  it('lists failed calls with the line that says what failed', async () => {
    const { fixture, model } = await report('coding-loop');
    const failing = (
      fixture.manifest as unknown as { commands: { command: string; exitCode: number }[] }
    ).commands.filter((command) => command.exitCode !== 0);
    expect(model.errors.map((error) => error.label)).toEqual(failing.map((command) => command.command));
    expect(model.errors[0]?.line).toContain('AssertionError');
    const failed = ofKind(model.conversation.items, 'tool').filter((item) => item.call.result?.failed);
    expect(failed.map((item) => item.call.result?.exit)).toEqual(failing.map((command) => command.exitCode));
  });

  it('charts each response once, and prices it by model', async () => {
    const { fixture, model } = await report('coding-loop');
    expect(model.chart.points).toHaveLength(fixture.manifest.usage.main.assistantMessages);
    expect(model.chart.points[model.chart.points.length - 1]?.tokens).toBe(fixture.manifest.contextTokens);
    expect(model.costs.rows.map((row) => row.model)).toEqual([fixture.manifest.model]);
    expect(model.costs.total.cacheRead).toBe(fixture.manifest.usage.total.cache_read_input_tokens);
    // The fixture runs claude-opus-4-8, which Claude Code 2.1.197 runs at 1M by default (models.ts),
    // with no auto-compact window: it compacts when the API refuses, at the window (reactive mode).
    expect(model.chart.autoCompactAt).toBe(1_000_000);
    expect(model.chart.window).toBe(1_000_000);
    expect(model.chart.autoCompactMode).toBe('reactive');
  });

  it('cuts big tool outputs and stops at its budget, keeping compaction marks', async () => {
    const { model } = await report('compactions', {
      toolOutputChars: 100,
      textChars: 50,
      totalChars: 2_000,
      maxErrors: 200,
    });
    const { conversation } = model;
    expect(conversation.omittedItems).toBeGreaterThan(0);
    expect(conversation.cutTexts).toBeGreaterThan(0);
    for (const item of ofKind(conversation.items, 'tool'))
      expect(item.call.result?.text.length ?? 0).toBeLessThanOrEqual(100);
    expect(ofKind(conversation.items, 'compaction')).toHaveLength(2);
  });
});

/** The chain the plain way: each segment walked over every entry before it. */
function chainByFullWalks(entries: readonly IndexedEntry[]): IndexedEntry[] {
  const members = new Set<IndexedEntry>();
  let end = entries.length;
  for (;;) {
    const segment = activeConversation(entries.slice(0, end));
    for (const entry of segment.entries) members.add(entry);
    const parent = segment.boundary?.logicalParentUuid ?? null;
    const at = segment.boundary === null ? -1 : entries.indexOf(segment.boundary);
    const parentIndex =
      parent === null
        ? -1
        : entries.slice(0, Math.max(0, at)).findLastIndex((entry) => entry.uuid === parent && !entry.isSidechain);
    if (parentIndex < 0 || parentIndex + 1 >= end) break;
    end = parentIndex + 1;
  }
  return entries.filter((entry) => members.has(entry));
}

describe('conversationChain', () => {
  it.each(SCENARIOS)('%s: the same entries as walking every segment over the whole file', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    open.push(fixture);
    const { main } = await createTranscripts({ db: fixture.store.db }).sessionEntries(fixture.sessionId);
    expect(conversationChain(main)).toEqual(chainByFullWalks(main));
  });
});

describe('cuts and labels', () => {
  it('never cut a surrogate pair in two', () => {
    expect(cutText('ab😀cd', 3)).toEqual({ text: 'ab', cutChars: 4 });
    expect(cutText('short', 10)).toEqual({ text: 'short', cutChars: 0 });
  });

  it('name a call by its telling input, on one line', () => {
    expect(callLabel({ command: 'npm   test\n--watch' })).toBe('npm test --watch');
    expect(callLabel({ file_path: '/a.ts', old_string: 'x' })).toBe('/a.ts');
    expect(callLabel({ todos: [] })).toBe('');
    expect(callLabel({ command: 'x'.repeat(500) })).toHaveLength(160);
  });
});
