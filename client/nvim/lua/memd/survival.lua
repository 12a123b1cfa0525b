-- A compaction's survival score (issue 32, docs/survival.md) as memctl compact prints it
-- (client/memctl/views/compaction.ts renderSurvival): the count, then the lost facts named, a few
-- per kind. Pure: lines out.
local format = require('memd.format')

local M = {}

-- Lost facts named per kind (memctl compact --json has them all), as memctl's SHOWN_LOST.
local SHOWN_LOST = 5
-- Characters of a fact shown on its line.
local FACT_CHARS = 100
local KINDS = { 'file', 'error', 'rule', 'todo', 'decision' }

-- The first FACT_CHARS characters of a fact, on one line.
local function shown(text)
  local line = text:gsub('\n', ' ')
  if format.chars(line) <= FACT_CHARS then
    return line
  end
  return vim.fn.strcharpart(line, 0, FACT_CHARS - 1) .. '…'
end

-- `  survival 41/43 facts kept, 2 lost:` and the lost facts; none from a daemon before issue 32.
function M.lines(survival)
  if survival == nil then
    return {}
  end
  local lost = survival.lost == 0 and '' or (', %d lost:'):format(survival.lost)
  local lines = { ('  survival %d/%d facts kept%s'):format(survival.kept, survival.kept + survival.lost, lost) }
  for _, kind in ipairs(KINDS) do
    local items = {}
    for _, item in ipairs(survival.items) do
      if not item.kept and item.kind == kind then
        table.insert(items, item.text)
      end
    end
    for i = 1, math.min(#items, SHOWN_LOST) do
      table.insert(lines, ('    - %s: %s'):format(kind, shown(items[i])))
    end
    if #items > SHOWN_LOST then
      table.insert(lines, ('    … %d more %s facts (--json lists them)'):format(#items - SHOWN_LOST, kind))
    end
  end
  return lines
end

return M
