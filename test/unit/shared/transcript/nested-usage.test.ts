/**
 * Sub-agent responses nested in `agent_progress` entries of the main transcript (issue 28 item 4):
 * parsed with their ids, model, usage and own time; counted once per message id + requestId, with
 * the final figure, as a sub-agent's, whether or not the sub-agent's file holds them too.
 */
import { describe, expect, it } from 'vitest';
import { candidateOf } from '../../../../daemon/usage/rank.js';
import { computeSessionAccounting } from '../../../../shared/transcript/accounting.js';
import { accountingOf, aggregateFromScratch, type CountedResponse } from '../../../../shared/transcript/aggregate.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { nestedSession, SUBAGENT_MODEL } from '../../../helpers/nested-usage.js';
import type { Line } from '../../../helpers/real-shapes.js';

function indexed(lines: readonly Line[]): IndexedEntry[] {
  let offset = 0;
  return lines.map((line) => {
    const length = JSON.stringify(line).length;
    const entry = parseEntry(line, offset, length) as IndexedEntry;
    offset += length + 1;
    return entry;
  });
}

const run = () =>
  nestedSession(
    '5f6a7b8c-7777-4d8e-9f0a-4b5c6d7e8f9a',
    '/w',
    Date.parse('2026-04-01T10:00:00.000Z'),
    3,
    'd4e5f6a7b8c9d0e1f',
    2,
  );
/** The sub-agent's three responses: outputs 200 + 37n + seed (nested-usage.ts). */
const SUBAGENT_OUTPUT = 202 + 239 + 276;

describe('parseEntry of an agent_progress entry', () => {
  it("keeps the nested response's ids, model, usage and time; nothing for other progress entries", () => {
    const { main, agent } = run();
    const entries = indexed(main.lines);
    const progress = entries.filter((entry) => entry.type === 'progress');
    const nested = progress.filter((entry) => entry.usage !== null);
    // Three entries per response (placeholders, then the final figure), none for the sub-agent's prompt, tool results or the hook.
    expect(nested).toHaveLength(9);
    expect(progress.length).toBeGreaterThan(nested.length);
    const own = indexed(agent.lines).filter((entry) => entry.type === 'assistant');
    expect(
      nested.map(({ messageId, requestId, model, usage, timestamp }) => ({
        messageId,
        requestId,
        model,
        usage,
        timestamp,
      })),
    ).toEqual(
      own.map(({ messageId, requestId, model, usage, timestamp }) => ({
        messageId,
        requestId,
        model,
        usage,
        timestamp,
      })),
    );
    expect(
      nested.every((entry) => entry.model === SUBAGENT_MODEL && !entry.isSidechain && entry.badTimestamp === undefined),
    ).toBe(true);
    // Its own time, not the progress entry's (written 1.5 s later): the day ccusage counts it on.
    const first = main.lines.find(
      (line) => line.type === 'progress' && ((line.data as Line).message as Line | undefined)?.type === 'assistant',
    ) as Line;
    expect(nested[0]?.timestamp).toBe(((first.data as Line).message as Line).timestamp);
    expect(nested[0]?.timestamp).not.toBe(first.timestamp);
  });
});

describe('counting nested responses', () => {
  it('counts each once as a sub-agent response, alone or beside the sub-agent file, never as the main context', () => {
    const { main, agent } = run();
    const mainEntries = indexed(main.lines);
    const agentEntries = indexed(agent.lines);
    const alone = computeSessionAccounting(mainEntries, [], { env: {} });
    const beside = computeSessionAccounting(mainEntries, agentEntries, { env: {} });
    const fileOnly = computeSessionAccounting(
      mainEntries.filter((entry) => entry.type !== 'progress'),
      agentEntries,
      { env: {} },
    );
    for (const accounting of [alone, beside, fileOnly]) {
      expect(accounting.usage.sidechain).toMatchObject({ assistantMessages: 3, output: SUBAGENT_OUTPUT });
      expect(accounting.usage.main.assistantMessages).toBe(2);
      expect(accounting.usage.total.costUsd).toBeCloseTo(fileOnly.usage.total.costUsd as number, 9);
    }
    expect(alone.contextTokens).toBe(fileOnly.contextTokens);
    expect(alone.model).toBe(fileOnly.model);

    // The persisted aggregate counts the same, folding the main transcript then the sub-agent's file.
    const known = new Map<string, CountedResponse>();
    const book = {
      get: (key: string) => known.get(key),
      set: (key: string, value: CountedResponse) => void known.set(key, value),
    };
    const state = aggregateFromScratch(
      [
        { kind: 'main', path: '/p/s.jsonl', entries: mainEntries },
        { kind: 'sidechain', path: '/p/s/subagents/agent-x.jsonl', entries: agentEntries },
      ],
      null,
      book,
    );
    const folded = accountingOf(state as Parameters<typeof accountingOf>[0], {});
    expect(folded.usage.sidechain).toMatchObject({ assistantMessages: 3, output: SUBAGENT_OUTPUT });
    expect(folded.usage.total).toEqual(beside.usage.total);
  });

  it("is a sidechain candidate of the usage book, keyed as the sub-agent file's entry", () => {
    const { main, agent } = run();
    const nested = indexed(main.lines).find(
      (entry) => entry.type === 'progress' && entry.usage !== null,
    ) as IndexedEntry;
    const own = indexed(agent.lines).find((entry) => entry.type === 'assistant') as IndexedEntry;
    const fromProgress = candidateOf(nested, 's', '/p/s.jsonl');
    const fromFile = candidateOf(own, 's', '/p/s/subagents/agent-x.jsonl');
    expect(fromProgress).toMatchObject({
      sidechain: true,
      model: SUBAGENT_MODEL,
      key: fromFile?.key,
      slot: fromFile?.slot,
    });
  });
});
