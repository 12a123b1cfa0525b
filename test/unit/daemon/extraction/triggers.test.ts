import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FIRST_EXTRACTION_TOKENS,
  MIN_GROWTH_TOKENS,
  MIN_TOOL_CALLS,
  shouldExtract,
  type TriggerReason,
  type TriggerState,
  triggerState,
} from '../../../../daemon/extraction/triggers.js';
import { createTailer, type Tailer } from '../../../../daemon/ingest/tailer.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { loadSessionEntries } from '../../../../daemon/transcripts/queries.js';
import type { LastExtraction } from '../../../../shared/transcript/accounting.js';
import { classifyTranscript } from '../../../../shared/transcript/layout.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

type Raw = Record<string, unknown>;

const SESSION_ID = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';

/**
 * Transcript lines as Claude Code writes them, each chained to the one before. Responses carry
 * usage with `input_tokens` equal to the context wanted, so that at a response line the context
 * is exactly that number; every other line adds its rough estimate (length / 4).
 */
class Script {
  private count = 0;
  private last: string | null = null;
  private pendingTools: string[] = [];

  private next(label: string): string {
    this.count += 1;
    return `${label}-${String(this.count).padStart(4, '0')}`;
  }

  private base(type: string, uuid: string): Raw {
    return {
      type,
      uuid,
      parentUuid: this.last,
      sessionId: SESSION_ID,
      timestamp: `2026-01-01T00:00:${String(this.count % 60).padStart(2, '0')}.000Z`,
    };
  }

  /** A user prompt of `chars` characters (chars / 4 tokens). */
  prompt(chars = 4): Raw {
    const uuid = this.next('user');
    const line = { ...this.base('user', uuid), message: { role: 'user', content: 'p'.repeat(chars) } };
    this.last = uuid;
    return line;
  }

  /** A response at `context` tokens, calling `tools` tools (one entry with that many tool_use blocks), or text. */
  response(context: number, tools = 0): Raw {
    const uuid = this.next('asst');
    const ids = Array.from({ length: tools }, (_, n) => `toolu_${uuid}_${n}`);
    const content =
      tools === 0
        ? [{ type: 'text', text: 'Done.' }]
        : ids.map((id) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } }));
    const line = {
      ...this.base('assistant', uuid),
      requestId: `req_${uuid}`,
      message: {
        id: `msg_${uuid}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content,
        usage: { input_tokens: context, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    };
    this.pendingTools = ids;
    this.last = uuid;
    return line;
  }

  /** The result of the oldest unanswered tool call, of `chars` characters (chars / 4 tokens). */
  result(chars = 4): Raw {
    const id = this.pendingTools.shift();
    if (id === undefined) throw new Error('no tool call to answer');
    const uuid = this.next('result');
    const line = {
      ...this.base('user', uuid),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'r'.repeat(chars) }] },
    };
    this.last = uuid;
    return line;
  }

  /**
   * A compact boundary; `postTokens` as newer Claude Code versions record it, or absent. With
   * `preserved`, the compaction kept those messages verbatim (they stay before the boundary in the
   * file); its anchor is the summary, which must be the next line.
   */
  boundary(preTokens: number, postTokens: number | null, preserved?: { headUuid: string; tailUuid: string }): Raw {
    const uuid = this.next('boundary');
    const compactMetadata: Raw = { trigger: 'auto', preTokens };
    if (postTokens !== null) compactMetadata.postTokens = postTokens;
    if (preserved)
      compactMetadata.preservedSegment = {
        ...preserved,
        anchorUuid: `summary-${String(this.count + 1).padStart(4, '0')}`,
      };
    const line = {
      ...this.base('system', uuid),
      parentUuid: null,
      logicalParentUuid: this.last,
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      compactMetadata,
    };
    this.last = uuid;
    return line;
  }

  /** The compaction's summary message, of `chars` characters. */
  summary(chars: number): Raw {
    const uuid = this.next('summary');
    const line = {
      ...this.base('user', uuid),
      isCompactSummary: true,
      message: { role: 'user', content: 's'.repeat(chars) },
    };
    this.last = uuid;
    return line;
  }
}

interface Step {
  label: string;
  state: TriggerState;
  extracted: TriggerReason | null;
}

/**
 * A session transcript growing line by line in a temporary projects dir, ingested by the real
 * tailer after every line; the triggers are evaluated on the index after each commit, and an
 * extraction is simulated whenever they fire (it covers everything up to the newest line).
 */
class GrowingSession {
  readonly steps: Step[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'memd-triggers-'));
  private readonly projectsDir = join(this.dir, 'projects');
  private readonly path = join(this.projectsDir, '-work-app', `${SESSION_ID}.jsonl`);
  private readonly store: Store = openStore(join(this.dir, 'memd.sqlite'), fakeLogger());
  private readonly tailer: Tailer = createTailer({
    db: this.store.db,
    log: fakeLogger(),
    clock: () => Date.now(),
    onCommit: () => {},
  });
  private lastExtraction: LastExtraction | null = null;

  constructor() {
    mkdirSync(join(this.projectsDir, '-work-app'), { recursive: true });
  }

  async write(label: string, line: Raw): Promise<Step> {
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
    const target = classifyTranscript(this.projectsDir, this.path);
    if (target === null) throw new Error('not a transcript path');
    await this.tailer.pass(target, { shouldYield: () => false });
    const { main } = loadSessionEntries(this.store.db, SESSION_ID);
    const state = triggerState(main, this.lastExtraction);
    const decision = shouldExtract(state);
    if (decision.extract) {
      const newest = main.findLast((entry) => entry.uuid !== null);
      if (!newest || newest.uuid === null) throw new Error('nothing to cover');
      this.lastExtraction = { uuid: newest.uuid, atOffset: newest.offset, contextTokens: state.contextTokens };
    }
    const step = { label, state, extracted: decision.reason };
    this.steps.push(step);
    return step;
  }

  /** The steps that fired, as `label: reason`. */
  extractions(): string[] {
    return this.steps.filter((step) => step.extracted !== null).map((step) => `${step.label}: ${step.extracted}`);
  }

  async close(): Promise<void> {
    await this.tailer.close();
    this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let session: GrowingSession | null = null;

function open(): GrowingSession {
  session = new GrowingSession();
  return session;
}

afterEach(async () => {
  await session?.close();
  session = null;
});

describe('shouldExtract', () => {
  const at = (overrides: Partial<TriggerState>): TriggerState => ({
    contextTokens: 50_000,
    lastExtraction: { uuid: 'u', contextTokens: 40_000 },
    tokenGrowth: 0,
    toolCallsSince: 0,
    lastResponseHasToolCalls: true,
    ...overrides,
  });

  it('extracts first at exactly 10,000 context tokens, whatever the tools', () => {
    expect(shouldExtract(at({ lastExtraction: null, contextTokens: FIRST_EXTRACTION_TOKENS - 1 }))).toEqual({
      extract: false,
      reason: null,
    });
    expect(shouldExtract(at({ lastExtraction: null, contextTokens: FIRST_EXTRACTION_TOKENS }))).toEqual({
      extract: true,
      reason: 'first',
    });
  });

  it('then needs 5,000 more tokens and either 3 tool calls or a natural break', () => {
    const grown = { tokenGrowth: MIN_GROWTH_TOKENS };
    expect(shouldExtract(at({ ...grown, toolCallsSince: MIN_TOOL_CALLS - 1 })).extract).toBe(false);
    expect(shouldExtract(at({ ...grown, toolCallsSince: MIN_TOOL_CALLS }))).toEqual({
      extract: true,
      reason: 'tokens-and-tools',
    });
    expect(shouldExtract(at({ ...grown, lastResponseHasToolCalls: false }))).toEqual({
      extract: true,
      reason: 'natural-break',
    });
    expect(
      shouldExtract(at({ tokenGrowth: MIN_GROWTH_TOKENS - 1, toolCallsSince: 50, lastResponseHasToolCalls: false }))
        .extract,
    ).toBe(false);
  });

  it('treats negative growth as none', () => {
    expect(
      shouldExtract(at({ tokenGrowth: -20_000, toolCallsSince: 10, lastResponseHasToolCalls: false })).extract,
    ).toBe(false);
  });
});

describe('triggers on ingested lines', () => {
  it('extracts first on the line that brings the context to 10,000 tokens', async () => {
    const s = new Script();
    const run = open();
    await run.write('prompt', s.prompt());
    await run.write('response 9,990 calling two tools', s.response(9_990, 2));
    const below = await run.write('result of 36 chars', s.result(36));
    expect(below.state.contextTokens).toBe(9_999);
    const reached = await run.write('result of 4 chars', s.result(4));
    expect(reached.state.contextTokens).toBe(10_000);
    await run.write('response 10,500', s.response(10_500));
    expect(run.extractions()).toEqual(['result of 4 chars: first']);
  });

  it('does not extract on growth alone in the middle of a tool loop; the third tool call does', async () => {
    const s = new Script();
    const run = open();
    await run.write('prompt', s.prompt());
    await run.write('response 10,000', s.response(10_000));
    await run.write('prompt 2', s.prompt());
    await run.write('tool 1 at 12,000', s.response(12_000, 1));
    await run.write('result 1', s.result());
    const grown = await run.write('tool 2 at 16,000', s.response(16_000, 1));
    expect(grown.state).toMatchObject({ tokenGrowth: 6_000, toolCallsSince: 2, lastResponseHasToolCalls: true });
    await run.write('result 2', s.result());
    await run.write('tool 3 at 17,000', s.response(17_000, 1));
    expect(run.extractions()).toEqual(['response 10,000: first', 'tool 3 at 17,000: tokens-and-tools']);
  });

  it('needs the full 5,000 tokens even with the tool calls: 4,999 does not, the next line does', async () => {
    const s = new Script();
    const run = open();
    await run.write('prompt', s.prompt());
    await run.write('response 10,000', s.response(10_000));
    await run.write('tool 1', s.response(11_000, 1));
    await run.write('result 1', s.result());
    await run.write('tool 2', s.response(12_000, 1));
    await run.write('result 2', s.result());
    const short = await run.write('tool 3 at 14,999', s.response(14_999, 1));
    expect(short.state).toMatchObject({ tokenGrowth: 4_999, toolCallsSince: 3 });
    const enough = await run.write('result 3 of 40 chars', s.result(40));
    expect(enough.state.tokenGrowth).toBe(5_009);
    expect(run.extractions()).toEqual(['response 10,000: first', 'result 3 of 40 chars: tokens-and-tools']);
  });

  it('extracts at a natural break once 5,000 tokens were added, with fewer than 3 tool calls', async () => {
    const s = new Script();
    const run = open();
    await run.write('prompt', s.prompt());
    await run.write('response 10,000', s.response(10_000));
    await run.write('tool at 12,000', s.response(12_000, 1));
    await run.write('result', s.result());
    const short = await run.write('answer at 14,999', s.response(14_999));
    expect(short.state).toMatchObject({ tokenGrowth: 4_999, toolCallsSince: 1, lastResponseHasToolCalls: false });
    await run.write('prompt of 4 chars', s.prompt(4));
    // Mid tool use again: growth alone waits; the answer after it is the next natural break.
    const busy = await run.write('tool at 20,000', s.response(20_000, 1));
    expect(busy.state).toMatchObject({ tokenGrowth: 5_000, toolCallsSince: 1, lastResponseHasToolCalls: true });
    await run.write('result 2', s.result());
    await run.write('answer at 20,100', s.response(20_100));
    expect(run.extractions()).toEqual([
      'response 10,000: first',
      'prompt of 4 chars: natural-break',
      'answer at 20,100: natural-break',
    ]);
  });

  // The summary (12,000 characters: 3,000 tokens) and the preserved tool rounds: two tool_use
  // entries of 20 characters each (5 tokens) and two results of 4 (1 token).
  const LEFT_BY_COMPACTION = 3_012;

  describe.each([
    { variant: 'recording postTokens', postTokens: LEFT_BY_COMPACTION as number | null },
    { variant: 'without postTokens (estimated from what it wrote)', postTokens: null },
  ])('a compact boundary after the last extraction, $variant', ({ postTokens }) => {
    async function compactedSession(): Promise<{ s: Script; run: GrowingSession }> {
      const s = new Script();
      const run = open();
      await run.write('prompt', s.prompt());
      await run.write('response 150,000', s.response(150_000));
      // Two tool calls after the extraction, kept by the compaction: they would make a third one count.
      const head = s.response(151_000, 1);
      await run.write('tool 1', head);
      await run.write('result 1', s.result());
      await run.write('tool 2', s.response(152_000, 1));
      const tail = s.result();
      await run.write('result 2', tail);
      await run.write(
        'boundary',
        s.boundary(152_001, postTokens, { headUuid: String(head.uuid), tailUuid: String(tail.uuid) }),
      );
      const summary = await run.write('summary', s.summary(12_000));
      expect(summary.state.contextTokens).toBe(LEFT_BY_COMPACTION);
      return { s, run };
    }

    it('measures growth from the context the compaction left, never below zero', async () => {
      const { s, run } = await compactedSession();
      await run.write('prompt after', s.prompt(4));
      const short = await run.write('answer 4,999 later', s.response(LEFT_BY_COMPACTION + 4_999));
      expect(short.state).toMatchObject({ tokenGrowth: 4_999, lastResponseHasToolCalls: false });
      await run.write('answer 5,000 later', s.response(LEFT_BY_COMPACTION + 5_000));
      expect(run.steps.every((step) => step.state.tokenGrowth >= 0)).toBe(true);
      expect(run.steps.find((step) => step.label === 'boundary')?.state.tokenGrowth).toBe(0);
      expect(run.steps.find((step) => step.label === 'summary')?.state.tokenGrowth).toBe(0);
      expect(run.extractions()).toEqual(['response 150,000: first', 'answer 5,000 later: natural-break']);
    });

    it('counts only the tool calls made after it', async () => {
      const { s, run } = await compactedSession();
      await run.write('prompt after', s.prompt(4));
      const grown = await run.write('tool 3, 5,000 later', s.response(LEFT_BY_COMPACTION + 5_000, 1));
      expect(grown.state).toMatchObject({ tokenGrowth: 5_000, toolCallsSince: 1, lastResponseHasToolCalls: true });
      await run.write('result 3', s.result());
      await run.write('tool 4', s.response(LEFT_BY_COMPACTION + 5_100, 1));
      await run.write('result 4', s.result());
      await run.write('tool 5', s.response(LEFT_BY_COMPACTION + 5_200, 1));
      expect(run.extractions()).toEqual(['response 150,000: first', 'tool 5: tokens-and-tools']);
    });
  });

  it('once an extraction ran after a boundary, the next one measures from that extraction', async () => {
    const s = new Script();
    const run = open();
    await run.write('prompt', s.prompt());
    await run.write('response 150,000', s.response(150_000));
    await run.write('boundary', s.boundary(150_001, 3_000));
    await run.write('summary', s.summary(12_000));
    await run.write('prompt after', s.prompt(4));
    await run.write('answer at 10,000', s.response(10_000));
    // 10,000 is 7,000 past what the compaction left: extracted here, and measured from here on.
    await run.write('answer at 14,999', s.response(14_999));
    await run.write('answer at 15,000', s.response(15_000));
    expect(run.extractions()).toEqual([
      'response 150,000: first',
      'answer at 10,000: natural-break',
      'answer at 15,000: natural-break',
    ]);
  });
});
