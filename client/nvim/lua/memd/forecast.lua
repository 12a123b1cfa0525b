-- The forecasts of `usage.status` (issue 31) in a few words each, with their provenance and basis:
-- the words of shared/statusline/forecast.ts, in Lua (test/integration/nvim-format.test.ts holds
-- the two equal), and the lines the session view (`:Memd status SESSION`, <CR> in `:Memd sessions`)
-- ends with. JSON null arrives as nil.
local format = require('memd.format')

local M = {}

local MINUTE_MS = 60000

-- `auto-compact in 4 turns ~12m`; `blocking …` with auto-compaction off (autoCompactText).
function M.auto_compact_text(forecast)
  local word = forecast.autoCompactEnabled and 'auto-compact' or 'blocking'
  local turns, minutes = forecast.turns, forecast.minutes
  if turns == nil then
    return word .. ': ' .. format.compact_tokens(forecast.tokensLeft) .. ' left, pace unknown'
  end
  if turns <= 0 then
    return word .. ' at the next turn'
  end
  local count = format.js_number(turns) .. ' turn' .. (turns == 1 and '' or 's')
  if minutes == nil then
    return word .. ' in ' .. count
  end
  return word .. ' in ' .. count .. ' ~' .. format.compact_duration(minutes * MINUTE_MS)
end

-- `5h limit in 1h10m at this pace`, `5h window resets first (↻1h52m)`, or why not (limitText).
function M.limit_text(forecast, now)
  local used, resets_at, reached_at = forecast.usedPercent, forecast.resetsAt, forecast.reachedAt
  if used == nil then
    return '5h limit: not reported'
  end
  if resets_at ~= nil and resets_at <= now then
    return '5h limit: window reset, not reported since'
  end
  if reached_at ~= nil then
    if reached_at <= now then
      return '5h limit reached'
    end
    return '5h limit in ' .. format.compact_duration(reached_at - now) .. ' at this pace'
  end
  if forecast.resetFirst then
    if resets_at == nil then
      return '5h window resets first'
    end
    return '5h window resets first (↻' .. format.compact_duration(resets_at - now) .. ')'
  end
  return '5h ' .. format.js_number(format.js_round(math.max(0, used))) .. '% used, pace unknown'
end

-- `cache expires in 4m: rebuild $0.42 (131K)`; past the expiry, `cache expired: …` (cacheRebuildText).
function M.cache_rebuild_text(forecast, now)
  local cost = forecast.costUsd == nil and 'unpriced' or ('$' .. format.to_fixed(forecast.costUsd, 2))
  local rebuild = 'rebuild ' .. cost .. ' (' .. format.compact_tokens(forecast.tokens) .. ')'
  local expires_at = forecast.expiresAt
  if expires_at == nil then
    return 'cache idle past ' .. forecast.ttl .. ': ' .. rebuild
  end
  if expires_at <= now then
    return 'cache expired: ' .. rebuild
  end
  return 'cache expires in ' .. format.compact_duration(expires_at - now) .. ': ' .. rebuild
end

-- The three, most pressing first (forecastLines): { kind, text, provenance, basis }.
function M.lines(result, now)
  local auto, limit, cache = result.autoCompact, result.limit, result.cacheRebuild
  return {
    { kind = 'autoCompact', text = M.auto_compact_text(auto), provenance = auto.provenance, basis = auto.basis },
    { kind = 'limit', text = M.limit_text(limit, now), provenance = limit.provenance, basis = limit.basis },
    { kind = 'cacheRebuild', text = M.cache_rebuild_text(cache, now), provenance = cache.provenance, basis = cache.basis },
  }
end

-- The session view's forecasts: each figure with whose it is, its basis on the line below.
function M.view_lines(result, now)
  local lines = {}
  for i, line in ipairs(M.lines(result, now)) do
    table.insert(lines, (i == 1 and '  forecast  ' or '            ') .. line.text .. ' [' .. line.provenance .. ']')
    table.insert(lines, '              ' .. line.basis:gsub('%s+', ' '))
  end
  return lines
end

return M
