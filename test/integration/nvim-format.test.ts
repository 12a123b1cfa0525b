/**
 * The Neovim plugin's context line (client/nvim/lua/memd/format.lua) against the one every other
 * client prints (shared/statusline/format.ts): the same facts, width and clock must give the same
 * line, byte for byte, in a real headless Neovim. The cases are the edges of each number's
 * formatting (JavaScript's rounding, toFixed's ties, K/M steps, age steps) and a seeded sample of
 * their combinations at many widths.
 */
import { describe, expect, it } from 'vitest';
import { factsFromSummary } from '../../client/memctl/quick/statusline.js';
import type { ThresholdResult, ThresholdState } from '../../shared/protocol/sessions.js';
import { formatStatusLine, type StatusFacts } from '../../shared/statusline/format.js';
import { NVIM_PATH, NVIM_SKIP_REASON, startNvim } from '../helpers/nvim.js';
import { seededRandom } from '../helpers/seeded-random.mjs';

interface Case {
  facts: StatusFacts;
  columns: number;
  now: number;
}

/** A fixed clock: ages are `NOW - memoryAt`. */
const NOW = Date.parse('2026-12-02T11:00:00.000Z');
const SAMPLED_CASES = 600;
const SEED = 16;

const STATES: ThresholdState[] = ['ok', 'warning', 'error', 'autocompact', 'blocking'];
const PERCENTS = [0, 1, 6, 7, 18, 19, 24, 50, 62.5, 87.5, 93.75, 99, 100, 103, 33.333333333333336, -5];
const TOKENS_LEFT = [
  -3, 0, 0.5, 1.5, 950, 999, 999.5, 1000, 1499, 1500, 131_000, 999_499, 999_500, 1_000_000, 1_049_999, 1_050_000,
  1_250_000, 12_345_678,
];
const COMPACTIONS: (number | null)[] = [null, 0, 1, 2, 17];
/** Ages around each unit's steps, and an extraction "in the future" (a clock skew): shown as 0s. */
const AGES_MS = [
  0, 499, 500, 44_500, 59_499, 59_500, 60_000, 3_599_499, 3_599_500, 86_399_499, 86_399_500, 172_800_000, -5_000,
];
const MEMORY: (number | null | undefined)[] = [undefined, null, ...AGES_MS.map((age) => NOW - age)];
const COSTS: (number | null)[] = [null, 0, 0.005, 0.015, 0.125, 0.375, 1.005, 1.125, 2.675, 1.234, 9.995, 1234.5678];
const COLUMNS = [1, 10, 20, 24, 30, 34, 40, 50, 60, 70, 80, 120, 200];
const NOTES: (string | null)[] = [null, 'no memd', 'memd: not indexed yet'];
/** The 5-hour window (issue 31): shares around the rounding, resets around each duration step, none, passed. */
const FIVE_HOURS: (StatusFacts['fiveHour'] | undefined)[] = [
  undefined,
  { usedPercent: 42.00000000000001, resetsAt: NOW + 6_720_000 },
  { usedPercent: 0.5, resetsAt: null },
  { usedPercent: 99.5, resetsAt: NOW + 59_499 },
  { usedPercent: 70, resetsAt: NOW + 3_600_000 },
  { usedPercent: -3, resetsAt: NOW + 266_400_000 },
  { usedPercent: 100, resetsAt: NOW + 86_400_000 },
  { usedPercent: 12.5, resetsAt: NOW },
];
/** Sessions Claude Code deleted that memd did not hold (issue 31): none, zero (no segment), some. */
const DELETED: (number | undefined)[] = [undefined, 0, 1, 12, 1234];
const CACHES: (StatusFacts['cache'] | undefined)[] = [
  undefined,
  { warm: true, expiresAt: NOW + 1_920_000, lastMissCause: null },
  { warm: true, expiresAt: null, lastMissCause: null },
  { warm: true, expiresAt: NOW, lastMissCause: 'ttl_expired_5m' },
  { warm: false, expiresAt: null, lastMissCause: 'tools_changed' },
  { warm: false, expiresAt: NOW - 5_000, lastMissCause: 'a_new_cause' },
  { warm: null, expiresAt: null, lastMissCause: 'model_changed' },
  { warm: null, expiresAt: NOW + 500, lastMissCause: null },
  ...['system_prompt_changed', 'messages_rewritten', 'ttl_expired_1h', 'likely_server_side', 'unknown'].map(
    (lastMissCause) => ({ warm: false, expiresAt: null, lastMissCause }),
  ),
];

/** What the last compaction kept (issue 32): none, all, some lost, large counts. */
const LAST_KEPT: (StatusFacts['lastKept'] | undefined)[] = [
  undefined,
  { kept: 43, total: 43 },
  { kept: 41, total: 43 },
  { kept: 0, total: 12 },
  { kept: 1234, total: 99_999 },
];

/** The model segment (issue 31): names each way modelName reads them, and none. */
const MODELS: (StatusFacts['model'] | undefined)[] = [
  undefined,
  { id: 'claude-opus-4-8[1m]', effort: 'high' },
  { id: 'claude-sonnet-4-5-20250929', effort: 'low' },
  { id: 'claude-sonnet-5', effort: 'xhigh' },
  { id: 'claude-opus-4-20250514', effort: 'max' },
  { id: 'claude-opus-4-123', effort: 'medium' },
  { id: 'claude-3-5-sonnet-20241022', effort: 'high' },
  { id: 'glm-4.6', effort: 'high' },
  { id: null, effort: 'high' },
];

function threshold(
  percentUsed: number,
  tokensLeft: number,
  state: ThresholdState,
  autoCompactEnabled: boolean,
  autoCompactMode: 'threshold' | 'reactive' = 'threshold',
): ThresholdResult {
  return {
    model: 'claude-opus-4-8',
    tokens: 0,
    window: 200_000,
    effectiveWindow: 180_000,
    autoCompactAt: 167_000,
    warningAt: 147_000,
    errorAt: 147_000,
    blockingAt: 177_000,
    state,
    tokensLeft,
    percentUsed,
    autoCompactEnabled,
    autoCompactMode,
  };
}

function facts(parts: Partial<StatusFacts> & { threshold: ThresholdResult | null }): StatusFacts {
  return { compactions: 2, memoryAt: NOW - 180_000, costUsd: 1.23, note: null, ...parts };
}

/** Every value of each dimension once, the others at a typical value. */
function edgeCases(): Case[] {
  const typical = threshold(24, 131_000, 'ok', true);
  const cases: Case[] = [];
  for (const percent of PERCENTS)
    cases.push({ facts: facts({ threshold: threshold(percent, 131_000, 'ok', true) }), columns: 120, now: NOW });
  for (const left of TOKENS_LEFT)
    cases.push({ facts: facts({ threshold: threshold(24, left, 'ok', true) }), columns: 120, now: NOW });
  for (const state of STATES)
    cases.push({ facts: facts({ threshold: threshold(24, 131_000, state, false) }), columns: 120, now: NOW });
  // Reactive mode (Claude Code 2.1.197 without an auto-compact window): its meter's "context used".
  for (const percent of PERCENTS)
    cases.push({
      facts: facts({ threshold: threshold(percent, 131_000, 'ok', true, 'reactive') }),
      columns: 120,
      now: NOW,
    });
  for (const compactions of COMPACTIONS)
    cases.push({ facts: facts({ threshold: typical, compactions }), columns: 120, now: NOW });
  for (const memoryAt of MEMORY) cases.push({ facts: facts({ threshold: typical, memoryAt }), columns: 120, now: NOW });
  for (const costUsd of COSTS) cases.push({ facts: facts({ threshold: typical, costUsd }), columns: 120, now: NOW });
  for (const note of NOTES) cases.push({ facts: facts({ threshold: typical, note }), columns: 120, now: NOW });
  for (const fiveHour of FIVE_HOURS)
    cases.push({
      facts: facts({ threshold: typical, ...(fiveHour === undefined ? {} : { fiveHour }) }),
      columns: 120,
      now: NOW,
    });
  for (const cache of CACHES)
    cases.push({
      facts: facts({ threshold: typical, ...(cache === undefined ? {} : { cache }) }),
      columns: 120,
      now: NOW,
    });
  for (const deletedNotHeld of DELETED)
    for (const columns of [30, 120])
      cases.push({
        facts: facts({ threshold: typical, ...(deletedNotHeld === undefined ? {} : { deletedNotHeld }) }),
        columns,
        now: NOW,
      });
  for (const lastKept of LAST_KEPT)
    for (const columns of [40, 120])
      cases.push({
        facts: facts({ threshold: typical, ...(lastKept === undefined ? {} : { lastKept }) }),
        columns,
        now: NOW,
      });
  for (const model of MODELS)
    cases.push({
      facts: facts({ threshold: typical, ...(model === undefined ? {} : { model }) }),
      columns: 120,
      now: NOW,
    });
  for (const columns of COLUMNS) {
    cases.push({ facts: facts({ threshold: typical }), columns, now: NOW });
    // What memctl statusline shows without memd: Claude Code's own figures, or none at all.
    cases.push({
      facts: facts({ threshold: typical, note: 'no memd', compactions: null, memoryAt: undefined, costUsd: null }),
      columns,
      now: NOW,
    });
    cases.push({
      facts: facts({ threshold: null, note: 'no memd', compactions: null, memoryAt: undefined }),
      columns,
      now: NOW,
    });
  }
  return cases;
}

function sampledCases(): Case[] {
  const random = seededRandom(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: SAMPLED_CASES }, () => {
    const fiveHour = pick(FIVE_HOURS);
    const cache = pick(CACHES);
    const deletedNotHeld = pick(DELETED);
    const model = pick(MODELS);
    const lastKept = pick(LAST_KEPT);
    return {
      facts: {
        ...(lastKept === undefined ? {} : { lastKept }),
        ...(model === undefined ? {} : { model }),
        ...(fiveHour === undefined ? {} : { fiveHour }),
        ...(deletedNotHeld === undefined ? {} : { deletedNotHeld }),
        ...(cache === undefined ? {} : { cache }),
        threshold:
          random() < 0.95
            ? threshold(
                pick(PERCENTS),
                pick(TOKENS_LEFT),
                pick(STATES),
                random() < 0.8,
                random() < 0.5 ? 'reactive' : 'threshold',
              )
            : null,
        compactions: pick(COMPACTIONS),
        memoryAt: pick(MEMORY),
        costUsd: pick(COSTS),
        note: pick(NOTES),
      },
      columns: pick(COLUMNS),
      now: NOW,
    };
  });
}

/** Runs format.lua over the cases in one Neovim; JSON null is `vim.NIL` there, absent is nil. */
const RENDER_CASES = `
  local format = require('memd.format')
  local function value(x) if x == vim.NIL then return nil end return x end
  local lines = {}
  for i, case in ipairs(vim.json.decode(...)) do
    local f = case.facts
    local memory_at = f.memoryAt
    if memory_at == vim.NIL then memory_at = false end
    local facts = { threshold = value(f.threshold), compactions = value(f.compactions), memoryAt = memory_at, costUsd = value(f.costUsd), note = value(f.note), deletedNotHeld = value(f.deletedNotHeld) }
    if f.fiveHour ~= nil then facts.fiveHour = { usedPercent = f.fiveHour.usedPercent, resetsAt = value(f.fiveHour.resetsAt) } end
    if f.lastKept ~= nil then facts.lastKept = { kept = f.lastKept.kept, total = f.lastKept.total } end
    if f.model ~= nil then facts.model = { id = value(f.model.id), effort = f.model.effort } end
    if f.cache ~= nil then facts.cache = { warm = value(f.cache.warm), expiresAt = value(f.cache.expiresAt), lastMissCause = value(f.cache.lastMissCause) } end
    lines[i] = format.status_line(facts, { columns = case.columns, now = case.now })
  end
  return lines
`;

describe(
  NVIM_PATH ? 'the Neovim plugin’s context line' : `the Neovim plugin’s context line (${NVIM_SKIP_REASON})`,
  () => {
    it.skipIf(!NVIM_PATH)('equals shared/statusline/format.ts for the same facts, width and clock', async () => {
      const cases = [...edgeCases(), ...sampledCases()];
      const nvim = startNvim({ cwd: process.cwd(), env: process.env });
      const lua = await nvim.lua<string[]>(RENDER_CASES, JSON.stringify(cases));
      const ts = cases.map((c) => formatStatusLine(c.facts, { color: false, columns: c.columns, now: c.now }));
      const differing = cases.flatMap((c, i) => (lua[i] === ts[i] ? [] : [{ case: c, lua: lua[i], ts: ts[i] }]));
      expect(differing.slice(0, 5)).toEqual([]);
      expect(lua).toHaveLength(cases.length);
      // The sample reaches the narrow widths where segments drop out, and the edge cases the wide ones.
      expect(new Set(ts).size).toBeGreaterThan(cases.length / 2);
      expect(await nvim.close()).toBe(0);
    });

    it.skipIf(!NVIM_PATH)('takes the facts of a SessionSummary as memctl statusline does', async () => {
      const typical = threshold(87, 21_000, 'warning', true);
      const usage = (costUsd: number | null) => ({ total: { costUsd } });
      const sessions = [
        // No sessionMemory (a daemon from before it), and an unreadable time: no extraction known.
        { threshold: typical, compactions: { count: 3 }, usage: usage(0.38) },
        {
          threshold: typical,
          compactions: { count: 0 },
          usage: usage(0.38),
          sessionMemory: { extractedAt: 'yesterday', lock: null, spentUsd: 0 },
        },
        {
          threshold: typical,
          compactions: { count: 1 },
          usage: usage(null),
          sessionMemory: { extractedAt: null, lock: null, spentUsd: 0 },
        },
        {
          threshold: typical,
          compactions: { count: 0 },
          usage: usage(12.5),
          sessionMemory: { extractedAt: '2026-12-02T10:57:00.000Z', lock: null, spentUsd: 0.01 },
        },
        {
          threshold: typical,
          compactions: { count: 0 },
          usage: usage(1),
          sessionMemory: { extractedAt: '2026-11-28T23:59:59.999Z', lock: null, spentUsd: 0 },
        },
        {
          threshold: typical,
          compactions: { count: 0 },
          usage: usage(1),
          sessionMemory: { extractedAt: '2026-12-02T10:59:58Z', lock: null, spentUsd: 0 },
        },
        // What memd kept of Claude Code's reports (issue 31): the session's window, else the account's; its cache.
        ...[
          {
            rateLimits: null,
            accountRateLimits: { value: { fiveHour: { usedPercent: 42.5, resetsAt: NOW + 6_720_000 } } },
            promptCache: { value: { warm: true, expiresAt: NOW + 600_000 } },
          },
          {
            rateLimits: { value: { fiveHour: { usedPercent: 7, resetsAt: null }, sevenDay: { usedPercent: 1 } } },
            accountRateLimits: { value: { fiveHour: { usedPercent: 99, resetsAt: null } } },
            promptCache: { value: { warm: false, lastMissCauses: ['tools_changed', 'ttl_expired_5m'] } },
          },
          { rateLimits: { value: { fiveHour: { usedPercent: 'lots' } } }, promptCache: { value: { warm: 'yes' } } },
          { rateLimits: null, accountRateLimits: null, promptCache: null },
          'not an object',
          // The reasoning effort Claude Code reported, beside the session's model; a bad level shows none.
          { rateLimits: null, accountRateLimits: null, promptCache: null, effort: { value: { level: 'high' } } },
          { rateLimits: null, accountRateLimits: null, promptCache: null, effort: { value: { level: 'very high' } } },
          { rateLimits: null, accountRateLimits: null, promptCache: null, effort: null },
        ].map((reported) => ({
          threshold: typical,
          compactions: { count: 0 },
          usage: usage(1),
          sessionMemory: { extractedAt: null, lock: null, spentUsd: 0 },
          model: 'claude-opus-4-8',
          reported,
        })),
        // Sessions Claude Code deleted that memd did not hold (issue 31): a count, and not one.
        ...[3, 'three'].map((deletedNotHeld) => ({
          threshold: typical,
          compactions: { count: 0 },
          usage: usage(1),
          sessionMemory: { extractedAt: null, lock: null, spentUsd: 0 },
          deletedNotHeld,
        })),
        // The survival score of Claude Code's last compaction (issue 32): a score, and a broken one.
        ...[{ kept: 41, lost: 2, recordedAt: '2026-12-02T10:00:00.000Z' }, { kept: 'all', lost: 0 }, 'none'].map(
          (lastCompaction) => ({
            threshold: typical,
            compactions: { count: 1 },
            usage: usage(1),
            sessionMemory: { extractedAt: null, lock: null, spentUsd: 0 },
            lastCompaction,
          }),
        ),
      ];
      const lua = await startNvim({ cwd: process.cwd(), env: process.env }).lua<string[]>(
        `
      local format = require('memd.format')
      local now, sessions = ...
      local lines = {}
      for i, session in ipairs(vim.json.decode(sessions, { luanil = { object = true, array = true } })) do
        lines[i] = format.status_line(format.facts(session), { now = now })
      end
      return lines
      `,
        NOW,
        JSON.stringify(sessions),
      );
      const ts = sessions.map((session) => {
        const facts = factsFromSummary(session, null);
        if (facts === null) throw new Error('not a summary to memctl');
        return formatStatusLine(facts, { color: false, columns: 120, now: NOW });
      });
      expect(lua).toEqual(ts);
      expect(lua.map((line) => line.match(/mem \S+/)?.[0])).toEqual([
        'mem -',
        'mem -',
        'mem -',
        'mem 3m',
        'mem 3d',
        'mem 2s',
        ...Array(13).fill('mem -'),
      ]);
      expect(lua.slice(-5, -3).map((line) => line.endsWith(' · 3 deleted, not kept'))).toEqual([true, false]);
      expect(lua.slice(-3).map((line) => line.includes(' · last compaction kept 41/43 · '))).toEqual([
        true,
        false,
        false,
      ]);
      expect(lua.slice(6, 9).map((line) => line.match(/5h [^·]*· .*(cache [^·]*) /)?.slice(0, 2))).toEqual([
        [expect.stringContaining('5h 43% ↻1h52m'), 'cache 10m'],
        [expect.stringContaining('5h 7%'), 'cache cold: tools'],
        undefined,
      ]);
      expect(lua.slice(11, 14).map((line) => line.split(' · ')[0])).toEqual([
        'Opus 4.8 (high)',
        expect.stringMatching(/^▕/),
        expect.stringMatching(/^▕/),
      ]);
    });
  },
);
