/**
 * The Neovim plugin's forecast words (client/nvim/lua/memd/forecast.lua) against the ones the VS
 * Code view shows (shared/statusline/forecast.ts): the same usage.status answer and clock must
 * give the same lines, in a real headless Neovim. The cases are each forecast's branches and the
 * edges of its numbers, in every combination.
 */
import { describe, expect, it } from 'vitest';
import type { UsageStatusResult } from '../../shared/protocol/forecast.js';
import { type ForecastLine, forecastLines } from '../../shared/statusline/forecast.js';
import { NVIM_PATH, NVIM_SKIP_REASON, startNvim } from '../helpers/nvim.js';
import { lines } from '../helpers/nvim-session.js';
import { eventually } from '../helpers/poll.js';
import { FORECAST_NOW as NOW, type UsageStatusParts, usageStatus } from '../helpers/usage-status.js';
import { sampleSession } from '../unit/client/vscode/sample.js';

const AUTO_COMPACTS: UsageStatusParts['autoCompact'][] = [
  {},
  { turns: 1, minutes: 75 },
  { turns: 3, minutes: null },
  { turns: 0 },
  { turns: null, minutes: null, tokensLeft: 999_500 },
  { autoCompactEnabled: false, turns: 9, minutes: 0.4 },
  { turns: 120, minutes: 59.99, provenance: 'official' },
];
const LIMITS: UsageStatusParts['limit'][] = [
  {},
  { reachedAt: NOW - 1 },
  { reachedAt: NOW + 86_400_000 + 3_540_000 },
  { reachedAt: null, resetFirst: true },
  { reachedAt: null, resetFirst: true, resetsAt: null },
  { reachedAt: null, percentPerHour: null, usedPercent: 42.5 },
  { reachedAt: null, percentPerHour: null, usedPercent: -2 },
  { usedPercent: null, resetsAt: null, reachedAt: null },
  { resetsAt: NOW, reachedAt: null },
];
const CACHES: UsageStatusParts['cacheRebuild'][] = [
  {},
  { expiresAt: NOW },
  { expiresAt: null, ttl: '1h' },
  { costUsd: null, tokens: 1_250_000 },
  { costUsd: 0.005, tokens: 950 },
  { costUsd: 1.125, tokens: 999_500, expiresAt: NOW + 59_499 },
];

function cases(): UsageStatusResult[] {
  return AUTO_COMPACTS.flatMap((autoCompact) =>
    LIMITS.flatMap((limit) => CACHES.map((cacheRebuild) => usageStatus({ autoCompact, limit, cacheRebuild }))),
  );
}

describe(NVIM_PATH ? 'the Neovim plugin’s forecasts' : `the Neovim plugin’s forecasts (${NVIM_SKIP_REASON})`, () => {
  it.skipIf(!NVIM_PATH)('equal shared/statusline/forecast.ts for the same answer and clock', async () => {
    const all = cases();
    const nvim = startNvim({ cwd: process.cwd(), env: process.env });
    const lua = await nvim.lua<ForecastLine[][]>(
      `
      local forecast = require('memd.forecast')
      local now, results = ...
      local out = {}
      for i, result in ipairs(vim.json.decode(results, { luanil = { object = true, array = true } })) do
        out[i] = forecast.lines(result, now)
      end
      return out
      `,
      NOW,
      JSON.stringify(all),
    );
    const ts = all.map((result) => forecastLines(result, NOW));
    // Lua's tables come back as maps in any key order: put in the TS order to compare.
    const ordered = (lines: ForecastLine[]) =>
      JSON.stringify(lines.map(({ kind, text, provenance, basis }) => ({ kind, text, provenance, basis })));
    const differing = all.flatMap((_, i) =>
      ordered(lua[i] ?? []) === ordered(ts[i] ?? []) ? [] : [{ lua: lua[i], ts: ts[i] }],
    );
    expect(differing.slice(0, 3)).toEqual([]);
    expect(lua).toHaveLength(all.length);
    expect(await nvim.close()).toBe(0);
  });

  it.skipIf(!NVIM_PATH)('end the session view: each figure with whose it is, its basis below', async () => {
    const nvim = startNvim({ cwd: process.cwd(), env: process.env });
    const lines = await nvim.lua<string[]>(
      `
      local now, result = ...
      return require('memd.forecast').view_lines(vim.json.decode(result, { luanil = { object = true } }), now)
      `,
      NOW,
      JSON.stringify(usageStatus({ limit: { provenance: 'official' } })),
    );
    expect(lines).toEqual([
      '  forecast  auto-compact in 4 turns ~12m [estimated]',
      '              The context grew 11.5K tokens a turn over the last 6 turns, one turn every 3.1 minutes.',
      '            5h limit in 1h27m at this pace [official]',
      '              Claude Code reported 42% used; this session spent 40% of the window an hour over its last hour.',
      '            cache expires in 4m: rebuild $0.43 (131K) [estimated]',
      '              131,000 context tokens at the cache-write price ($3.75/M) minus the read price ($0.30/M).',
    ]);
    expect(await nvim.close()).toBe(0);
  });

  /** The session view with memd's answers stubbed: `usage.status` answers `usageAnswer`. */
  async function sessionView(usageAnswer: { result?: unknown; error?: { message: string; code: number } }) {
    const session = sampleSession();
    const nvim = startNvim({ cwd: process.cwd(), env: process.env });
    await nvim.lua(
      `
      local answers = vim.json.decode(..., { luanil = { object = true, array = true } })
      _G.memd_test_asked = {}
      -- Answered on a later tick, as the socket would.
      require('memd').request = function(method, _, callback)
        vim.schedule(function()
          local answer = answers[method]
          callback(answer.error, answer.result)
          table.insert(_G.memd_test_asked, method)
        end)
      end
      require('memd.commands').open_session(answers['sessions.get'].result.sessionId)
      `,
      JSON.stringify({ 'sessions.get': { result: session }, 'usage.status': usageAnswer }),
    );
    await eventually(
      async () => (await nvim.lua<string[]>('return _G.memd_test_asked')).length === 2,
      'both answers handled',
    );
    return lines(nvim, `memd://session/${session.sessionId}`, (text) => text.length > 1);
  }

  it.skipIf(!NVIM_PATH)('end the session view when memd answers usage.status', async () => {
    const shown = await sessionView({ result: usageStatus() });
    expect(shown.slice(-6, -4)).toEqual([
      '  forecast  auto-compact in 4 turns ~12m [estimated]',
      '              The context grew 11.5K tokens a turn over the last 6 turns, one turn every 3.1 minutes.',
    ]);
  });

  it.skipIf(!NVIM_PATH)(
    'are left out quietly by a memd without usage.status, and say why on another failure',
    async () => {
      const without = await sessionView({ error: { message: 'no such method: usage.status', code: -32601 } });
      expect(without.at(-1)).toMatch(/^ {2}index {5}49 entries/);
      expect(without.some((line) => line.includes('forecast'))).toBe(false);
      const failing = await sessionView({ error: { message: 'no answer from memd within 5 s', code: -32603 } });
      expect(failing.at(-1)).toBe('  forecast  memd could not forecast: no answer from memd within 5 s');
      const invalid = await sessionView({ result: { sessionId: 'x' } });
      expect(invalid.at(-1)).toMatch(/^ {2}forecast {2}memd could not forecast: usage_status\.\w+ should be an object/);
    },
  );
});
