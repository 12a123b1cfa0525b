-- The one-line context string, as shared/statusline/format.ts makes it (without colour):
--
--   ▕██░░░░░░▏ 24% used of auto-compact · 131K left · 2 compactions · mem 3m · $1.23
--
-- Segments go, least useful first, until the line fits its width; the percentage always stays.
-- Numbers are printed as JavaScript prints them (Math.round, toFixed, String(n)), so that the
-- plugin's line equals memctl's for the same facts; test/integration/nvim-format.test.ts checks
-- the two against each other. Pure: no I/O, no editor state.
local M = {}

-- Cells between the bar's ends: 12.5 % steps (STATUS_BAR_CELLS in format.ts).
M.STATUS_BAR_CELLS = 8
-- The width assumed when none is given (DEFAULT_STATUS_COLUMNS in format.ts): the full line fits.
M.DEFAULT_COLUMNS = 120

local SEPARATOR = ' · '

-- JavaScript's Math.round: the nearest integer, halves toward +infinity.
function M.js_round(x)
  local floor = math.floor(x)
  if x - floor >= 0.5 then
    return floor + 1
  end
  return floor
end

-- JavaScript's String(n) for the numbers a status line holds: integers in full, other values in
-- the fewest digits that read back as the same double (what V8 prints).
function M.js_number(x)
  if x ~= x then
    return 'NaN'
  end
  if x == math.huge then
    return 'Infinity'
  end
  if x == -math.huge then
    return '-Infinity'
  end
  if x == math.floor(x) and math.abs(x) < 1e21 then
    return (string.format('%.0f', x):gsub('^%-0$', '0'))
  end
  for precision = 1, 17 do
    local text = string.format('%.' .. precision .. 'g', x)
    if tonumber(text) == x then
      return text
    end
  end
  return string.format('%.17g', x)
end

-- Adds one to the last digit of a string of decimal digits, carrying.
local function increment_digits(digits)
  local bytes = { digits:byte(1, -1) }
  local i = #bytes
  while i >= 1 do
    if bytes[i] == 57 then -- '9'
      bytes[i] = 48
      i = i - 1
    else
      bytes[i] = bytes[i] + 1
      return string.char(unpack(bytes))
    end
  end
  return '1' .. string.char(unpack(bytes))
end

-- Digits printed to see a double's exact decimal value: a double of 2^-28 or more has at most 80
-- fractional digits, and a smaller one rounds to zero at any precision a status line uses.
local EXACT_DIGITS = 80

-- JavaScript's Number.prototype.toFixed: the decimal nearest the double's exact value, a tie
-- going to the larger magnitude (C's printf rounds ties to even, so it cannot be used directly).
function M.to_fixed(x, digits)
  if x ~= x or math.abs(x) >= 1e21 then
    return M.js_number(x)
  end
  local sign = ''
  if x < 0 then
    sign = '-'
    x = -x
  end
  local whole, fraction = string.format('%.' .. EXACT_DIGITS .. 'f', x):match('^(%d+)%.(%d+)$')
  local kept = whole .. fraction:sub(1, digits)
  if fraction:sub(digits + 1, digits + 1) >= '5' then
    kept = increment_digits(kept)
  end
  local split = #kept - digits
  if digits == 0 then
    return sign .. kept
  end
  return sign .. kept:sub(1, split) .. '.' .. kept:sub(split + 1)
end

-- Code points, which is what format.ts counts as visible characters.
function M.chars(text)
  local count = 0
  for i = 1, #text do
    local byte = text:byte(i)
    if byte < 0x80 or byte >= 0xC0 then
      count = count + 1
    end
  end
  return count
end

-- `131K`, `1.2M`, `950`.
function M.compact_tokens(tokens)
  if tokens >= 1000000 then
    return M.to_fixed(tokens / 1000000, 1) .. 'M'
  end
  if tokens >= 1000 then
    return M.js_number(M.js_round(tokens / 1000)) .. 'K'
  end
  return M.js_number(math.max(0, M.js_round(tokens)))
end

-- `45s`, `3m`, `2h`, `4d`: an age in the fewest characters.
function M.compact_age(ms)
  local seconds = math.max(0, M.js_round(ms / 1000))
  if seconds < 60 then
    return M.js_number(seconds) .. 's'
  end
  if seconds < 3600 then
    return M.js_number(math.floor(seconds / 60)) .. 'm'
  end
  if seconds < 86400 then
    return M.js_number(math.floor(seconds / 3600)) .. 'h'
  end
  return M.js_number(math.floor(seconds / 86400)) .. 'd'
end

-- `45s`, `52m`, `1h52m`, `3d2h`: a time to come, in two units from an hour on (compactDuration).
function M.compact_duration(ms)
  local seconds = math.max(0, M.js_round(ms / 1000))
  if seconds < 60 then
    return M.js_number(seconds) .. 's'
  end
  local minutes = math.floor(seconds / 60)
  if minutes < 60 then
    return M.js_number(minutes) .. 'm'
  end
  local hours = math.floor(minutes / 60)
  if hours < 24 then
    if minutes % 60 == 0 then
      return M.js_number(hours) .. 'h'
    end
    return M.js_number(hours) .. 'h' .. M.js_number(minutes % 60) .. 'm'
  end
  if hours % 24 == 0 then
    return M.js_number(math.floor(hours / 24)) .. 'd'
  end
  return M.js_number(math.floor(hours / 24)) .. 'd' .. M.js_number(hours % 24) .. 'h'
end

-- `5h 42% ↻1h52m` (fiveHourText); nil once the reset has passed: the share is of a window that is over.
function M.five_hour_text(window, now)
  if window.resetsAt ~= nil and window.resetsAt <= now then
    return nil
  end
  local used = '5h ' .. M.js_number(M.js_round(math.max(0, window.usedPercent))) .. '%'
  if window.resetsAt == nil then
    return used
  end
  return used .. ' ↻' .. M.compact_duration(window.resetsAt - now)
end

-- Claude Code's miss causes (2.1.260) in a word (MISS_CAUSE_WORDS); another is shown as it came.
local MISS_CAUSE_WORDS = {
  system_prompt_changed = 'system prompt',
  tools_changed = 'tools',
  model_changed = 'model',
  messages_rewritten = 'history',
  ttl_expired_5m = 'ttl 5m',
  ttl_expired_1h = 'ttl 1h',
  likely_server_side = 'server',
  unknown = '?',
}

-- `cache 4m` while warm, `cache cold: tools` once not (cacheText); cache: { warm = boolean or nil,
-- expiresAt = epoch ms or nil, lastMissCause = string or nil }.
function M.cache_text(cache, now)
  local expired = cache.expiresAt ~= nil and cache.expiresAt <= now
  if cache.warm == true and not expired then
    if cache.expiresAt == nil then
      return 'cache warm'
    end
    return 'cache ' .. M.compact_duration(cache.expiresAt - now)
  end
  if cache.warm == nil and cache.expiresAt == nil then
    return nil
  end
  if expired then
    return 'cache cold: expired'
  end
  if cache.lastMissCause == nil then
    return 'cache cold'
  end
  return 'cache cold: ' .. (MISS_CAUSE_WORDS[cache.lastMissCause] or cache.lastMissCause)
end

-- The percentage, always the share used, as the bar draws it (shared/statusline/format.ts
-- percentText): "context used" when Claude Code compacts only once the API refuses (reactive
-- mode), "used of auto-compact" at a threshold, "of window used" with auto-compaction off.
function M.percent_text(threshold)
  local used = M.js_number(math.max(0, threshold.percentUsed))
  if not threshold.autoCompactEnabled then
    return used .. '% of window used'
  end
  if threshold.autoCompactMode == 'reactive' then
    return used .. '% context used'
  end
  return used .. '% used of auto-compact'
end

function M.status_bar(threshold)
  local used = math.min(100, math.max(0, threshold.percentUsed))
  local filled = M.js_round(used / 100 * M.STATUS_BAR_CELLS)
  return '▕' .. string.rep('█', filled) .. string.rep('░', M.STATUS_BAR_CELLS - filled) .. '▏'
end

-- `claude-opus-4-8[1m]` -> `Opus 4.8`, `claude-sonnet-4-5-20250929` -> `Sonnet 4.5`; any other id
-- as it is (modelName).
function M.model_name(id)
  local rest = id:match('^claude%-(.*)$')
  if rest == nil then
    return id
  end
  rest = rest:gsub('%[1m%]$', '', 1)
  rest = rest:gsub('%-%d%d%d%d%d%d%d%d$', '', 1)
  local family, major, minor = rest:match('^(%l+)%-(%d+)%-(%d%d?)$')
  if family == nil then
    family, major = rest:match('^(%l+)%-(%d+)$')
  end
  if family == nil then
    return id
  end
  local name = family:sub(1, 1):upper() .. family:sub(2) .. ' ' .. major
  return minor == nil and name or (name .. '.' .. minor)
end

-- `Opus 4.8 (high)`, or `effort high` without a model (modelText). model: { id = string or nil, effort }.
function M.model_text(model)
  if model.id == nil then
    return 'effort ' .. model.effort
  end
  return M.model_name(model.id) .. ' (' .. model.effort .. ')'
end

-- facts: { threshold = ThresholdResult or nil (unknown), compactions = number or nil (unknown),
-- memoryAt = epoch ms, false (no extraction yet) or nil (unknown), costUsd = number or nil
-- (unknown), note = string or nil (where the figures fall short, e.g. `no memd`), fiveHour =
-- { usedPercent, resetsAt = epoch ms or nil } or nil, cache = see cache_text, or nil, model = see
-- model_text, or nil }.
local function segments(facts, now)
  local list = {}
  local threshold = facts.threshold
  if facts.model ~= nil then
    table.insert(list, { text = M.model_text(facts.model), keep = 1.5 })
  end
  if threshold ~= nil then
    table.insert(list, { text = M.status_bar(threshold), keep = 1 })
    table.insert(list, { text = M.percent_text(threshold), keep = 9, tight = true })
  end
  local five_hour = facts.fiveHour ~= nil and M.five_hour_text(facts.fiveHour, now) or nil
  if five_hour ~= nil then
    table.insert(list, { text = five_hour, keep = 8 })
  end
  if threshold ~= nil then
    table.insert(list, { text = M.compact_tokens(threshold.tokensLeft) .. ' left', keep = 6 })
  end
  local cache = facts.cache ~= nil and M.cache_text(facts.cache, now) or nil
  if cache ~= nil then
    table.insert(list, { text = cache, keep = 5 })
  end
  if facts.compactions ~= nil then
    local plural = facts.compactions == 1 and '' or 's'
    table.insert(list, { text = M.js_number(facts.compactions) .. ' compaction' .. plural, keep = 2 })
  end
  -- Issue 32: what the last compaction kept of the session's facts (shared/statusline/format.ts).
  if facts.lastKept ~= nil then
    local kept = facts.lastKept
    table.insert(list, { text = ('last compaction kept %s/%s'):format(M.js_number(kept.kept), M.js_number(kept.total)), keep = 1.8 })
  end
  if facts.memoryAt == false then
    table.insert(list, { text = 'mem -', keep = 3 })
  elseif facts.memoryAt ~= nil then
    table.insert(list, { text = 'mem ' .. M.compact_age(now - facts.memoryAt), keep = 3 })
  end
  if facts.costUsd ~= nil then
    table.insert(list, { text = '$' .. M.to_fixed(facts.costUsd, 2), keep = 4 })
  end
  -- Issue 31: the least useful segment, the first to go; `memctl archive deleted` says the rest.
  if facts.deletedNotHeld ~= nil and facts.deletedNotHeld > 0 then
    table.insert(list, { text = M.js_number(facts.deletedNotHeld) .. ' deleted, not kept', keep = 0 })
  end
  if facts.note ~= nil then
    table.insert(list, { text = facts.note, keep = 7 })
  end
  return list
end

-- A tight segment (the percentage) is joined to the bar before it by a space, not a separator.
local function joined(list)
  local parts = {}
  for i, segment in ipairs(list) do
    local joint = ''
    if i > 1 then
      joint = (segment.tight and list[i - 1].keep == 1) and ' ' or SEPARATOR
    end
    parts[#parts + 1] = joint .. segment.text
  end
  return table.concat(parts)
end

-- The line, within `style.columns` visible characters as far as its most useful segment allows.
-- style: { columns = number (default DEFAULT_COLUMNS), now = epoch ms }.
function M.status_line(facts, style)
  local columns = style.columns or M.DEFAULT_COLUMNS
  local list = segments(facts, style.now)
  while #list > 1 and M.chars(joined(list)) > columns do
    local lowest = 1
    for i, segment in ipairs(list) do
      if segment.keep < list[lowest].keep then
        lowest = i
      end
    end
    table.remove(list, lowest)
  end
  return joined(list)
end

-- Days since 1970-01-01 of a proleptic Gregorian date (the usual civil-from-days inverse).
local function days_from_civil(year, month, day)
  if month <= 2 then
    year = year - 1
  end
  local era = math.floor(year / 400)
  local year_of_era = year - era * 400
  local shifted_month = (month + 9) % 12
  local day_of_year = math.floor((153 * shifted_month + 2) / 5) + day - 1
  local day_of_era = year_of_era * 365 + math.floor(year_of_era / 4) - math.floor(year_of_era / 100) + day_of_year
  return era * 146097 + day_of_era - 719468
end

-- Epoch ms of an ISO 8601 UTC timestamp as memd writes them (`2026-12-02T11:00:00.000Z`, what
-- Date.toISOString gives); nil for anything else.
function M.parse_iso(text)
  if type(text) ~= 'string' then
    return nil
  end
  local year, month, day, hour, minute, second, fraction = text:match('^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)%.?(%d*)Z$')
  if year == nil then
    return nil
  end
  local ms = fraction == '' and 0 or math.floor(tonumber(('0.' .. fraction)) * 1000 + 0.5)
  local days = days_from_civil(tonumber(year), tonumber(month), tonumber(day))
  return ((days * 24 + tonumber(hour)) * 60 + tonumber(minute)) * 60000 + tonumber(second) * 1000 + ms
end

local function record(x)
  if type(x) == 'table' and x ~= vim.NIL then
    return x
  end
  return nil
end

local function finite(x)
  if type(x) == 'number' and x == x and x ~= math.huge and x ~= -math.huge then
    return x
  end
  return nil
end

-- A SessionSummary (validated: see validate.lua) as the facts of its line, as memctl statusline
-- takes them (factsFromSummary in client/memctl/quick/statusline.ts): the threshold,
-- compactions, the last session-memory extraction (a missing or unreadable time counts as none
-- yet) and the session's total cost.
function M.facts(session)
  local memory = session.sessionMemory
  local memory_at = memory ~= nil and M.parse_iso(memory.extractedAt) or nil
  if memory_at == nil then
    memory_at = false
  end
  local facts = {
    threshold = session.threshold,
    compactions = session.compactions.count,
    memoryAt = memory_at,
    costUsd = session.usage.total.costUsd,
    -- Sessions Claude Code deleted that memd did not hold (issue 31; sessions.get only).
    deletedNotHeld = finite(session.deletedNotHeld),
  }
  -- The survival score of Claude Code's last compaction (issue 32), as factsFromSummary reads it.
  local last = record(session.lastCompaction)
  local kept, lost = last ~= nil and finite(last.kept) or nil, last ~= nil and finite(last.lost) or nil
  if kept ~= nil and lost ~= nil then
    facts.lastKept = { kept = kept, total = kept + lost }
  end
  M.add_reported(facts, session.reported, session.model)
  return facts
end

-- What memd kept of Claude Code's reports (`reported`, issue 31), as factsFromSummary reads it:
-- the session's 5-hour window, else the account's; the session's cache; the effort beside the
-- session's model; field by field.
function M.add_reported(facts, reported, model)
  reported = record(reported)
  if reported == nil then
    return
  end
  -- The model segment comes with an effort only (modelFacts): a level is a short word.
  local effort = record(reported.effort)
  local level = effort ~= nil and record(effort.value) and effort.value.level or nil
  if type(level) == 'string' and #level <= 20 and level:match('^%a[%w_%-]*$') then
    facts.model = { id = type(model) == 'string' and model ~= '' and model or nil, effort = level }
  end
  local limits = record(reported.rateLimits) or record(reported.accountRateLimits)
  local five_hour = limits ~= nil and record(record(limits.value) and limits.value.fiveHour) or nil
  local used = five_hour ~= nil and finite(five_hour.usedPercent) or nil
  if used ~= nil then
    facts.fiveHour = { usedPercent = used, resetsAt = finite(five_hour.resetsAt) }
  end
  local cache_report = record(reported.promptCache)
  local cache = cache_report ~= nil and record(cache_report.value) or nil
  if cache ~= nil then
    local causes = record(cache.lastMissCauses)
    local cause = causes ~= nil and type(causes[1]) == 'string' and causes[1] or nil
    local warm = nil
    if type(cache.warm) == 'boolean' then
      warm = cache.warm
    end
    facts.cache = { warm = warm, expiresAt = finite(cache.expiresAt), lastMissCause = cause }
  end
end

return M
