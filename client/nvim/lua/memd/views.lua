-- The text of the plugin's buffers, from validated answers (validate.lua): the same facts, and
-- mostly the same words, as memctl prints (client/memctl/views/sessions.ts, session-detail.ts,
-- status.ts, compaction.ts, commands/memory.ts, handoff.ts), without colour. Pure: lines out.
local format = require('memd.format')
local survival = require('memd.survival')

local M = {}

-- Columns of the sessions list, as memctl sessions has them.
local SESSION_ID_CHARS = 8
local PROJECT_CHARS = 20
local TITLE_CHARS = 28
-- The COST column's width, as memctl's (`$123.45`).
local COST_CHARS = 7
-- Cells of memctl's context bar (views/sessions.ts BAR_CELLS).
local BAR_CELLS = 8

local js_number, js_round, to_fixed = format.js_number, format.js_round, format.to_fixed

-- The first `count` code points of `text`.
local function head(text, count)
  local seen = 0
  for i = 1, #text do
    local byte = text:byte(i)
    if byte < 0x80 or byte >= 0xC0 then
      seen = seen + 1
      if seen > count then
        return text:sub(1, i - 1)
      end
    end
  end
  return text
end

local function pad(text, width)
  return text .. string.rep(' ', math.max(0, width - format.chars(text)))
end

local function pad_left(text, width)
  return string.rep(' ', math.max(0, width - format.chars(text))) .. text
end

-- Cut on the right with an ellipsis, padded to `width`.
local function truncate(text, width)
  if format.chars(text) <= width then
    return pad(text, width)
  end
  return head(text, width - 1) .. '…'
end

-- Cut on the left: the end of a path is what tells projects apart.
local function truncate_left(text, width)
  local length = format.chars(text)
  if length <= width then
    return pad(text, width)
  end
  local skip = head(text, length - width + 1)
  return '…' .. text:sub(#skip + 1)
end

-- One line of text: newlines would split a buffer line.
local function one_line(text)
  return (tostring(text):gsub('[\r\n]+', ' '))
end

-- memctl's `131K`: views/sessions.ts formatTokens.
function M.tokens(tokens)
  return format.compact_tokens(tokens)
end

-- `3m ago`, as memctl's formatAge.
function M.age(iso, now)
  local at = format.parse_iso(iso)
  if at == nil then
    return '-'
  end
  local seconds = math.max(0, js_round((now - at) / 1000))
  if seconds < 60 then
    return js_number(seconds) .. 's ago'
  end
  if seconds < 3600 then
    return js_number(js_round(seconds / 60)) .. 'm ago'
  end
  if seconds < 86400 then
    return js_number(js_round(seconds / 3600)) .. 'h ago'
  end
  return js_number(js_round(seconds / 86400)) .. 'd ago'
end

-- `1h 5m`, as memctl's formatDuration.
function M.duration(ms)
  local seconds = math.floor(ms / 1000)
  local days = math.floor(seconds / 86400)
  local hours = math.floor((seconds % 86400) / 3600)
  local minutes = math.floor((seconds % 3600) / 60)
  local parts = {}
  if days > 0 then
    table.insert(parts, days .. 'd')
  end
  if hours > 0 then
    table.insert(parts, hours .. 'h')
  end
  if minutes > 0 and days == 0 then
    table.insert(parts, minutes .. 'm')
  end
  if days == 0 and hours == 0 then
    table.insert(parts, (seconds % 60) .. 's')
  end
  return table.concat(parts, ' ')
end

-- `61.9 MiB`, as memctl's formatBytes.
function M.bytes(bytes)
  local units = { 'B', 'KiB', 'MiB', 'GiB' }
  local value, unit = bytes, 1
  while value >= 1024 and unit < #units do
    value = value / 1024
    unit = unit + 1
  end
  return (unit == 1 and js_number(value) or to_fixed(value, 1)) .. ' ' .. units[unit]
end

local function cost(usd)
  return usd == nil and '?' or ('$' .. to_fixed(usd, 2))
end

-- Claude Code compacts only once the API refuses, at the window (reactive mode, auto-compaction
-- on); an answer without autoCompactMode (an older memd) is threshold mode. As memctl's
-- compactsWhenRefused (shared/statusline/format.ts).
local function compacts_when_refused(threshold)
  return threshold.autoCompactEnabled and threshold.autoCompactMode == 'reactive'
end

-- `▕██████░░▏ 91% used of auto-compact · 140K/154K, 14K left` (in reactive mode `3% context used ·
-- 33K/1M, 967K left`), as memctl's contextBar: the status line's words (format.percent_text).
function M.context_bar(tokens, threshold)
  local base = threshold.autoCompactEnabled and threshold.autoCompactAt or threshold.effectiveWindow
  local fraction = base > 0 and math.min(1, tokens / base) or 1
  local filled = js_round(fraction * BAR_CELLS)
  local bar = '▕' .. string.rep('█', filled) .. string.rep('░', BAR_CELLS - filled) .. '▏'
  local off = threshold.autoCompactEnabled and '' or ' (auto-compact off)'
  return ('%s %s%s · %s/%s, %s left'):format(bar, format.percent_text(threshold), off, M.tokens(tokens), M.tokens(base), M.tokens(threshold.tokensLeft))
end

-- What a session is called in a list: its title, else why it has none.
function M.title_of(session)
  if session.hasMainTranscript == false then
    return '(main transcript missing)'
  end
  return one_line(session.title or '(untitled)')
end

-- The end of the session's cwd (the folder name when no entry carried a cwd).
local function project_label(session)
  if session.cwd == nil then
    return session.project
  end
  return session.cwd:match('([^/]+)/*$') or session.cwd
end

-- The shared context line of a session (shared/statusline/format.ts).
function M.status_line(session, now)
  return format.status_line(format.facts(session), { now = now })
end

-- Lines of `:Memd sessions` and the session id of each line (nil for the header).
function M.sessions(sessions, now)
  if #sessions == 0 then
    return { 'no sessions yet' }, {}
  end
  -- COST as memctl sessions has it: the session's total, `?` for an unpriced model.
  local lines = { ('%s  %s  %s  %s  %s  CONTEXT'):format(pad('SESSION', SESSION_ID_CHARS), pad('PROJECT', PROJECT_CHARS), pad('TITLE', TITLE_CHARS), pad('LAST', 7), pad_left('COST', COST_CHARS)) }
  local ids = {}
  for _, session in ipairs(sessions) do
    local row = ('%s  %s  %s  %s  %s  %s%s'):format(
      pad(session.sessionId:sub(1, SESSION_ID_CHARS), SESSION_ID_CHARS),
      truncate_left(one_line(project_label(session)), PROJECT_CHARS),
      truncate(M.title_of(session), TITLE_CHARS),
      pad(M.age(session.lastActivity, now), 7),
      pad_left(cost(session.usage.total.costUsd), COST_CHARS),
      M.status_line(session, now),
      session.gone and ' (deleted)' or ''
    )
    table.insert(lines, row)
    ids[#lines] = session.sessionId
  end
  return lines, ids
end

local function usage_line(label, usage)
  local usd = usage.costUsd == nil and 'cost unknown (unpriced model)' or ('$' .. to_fixed(usage.costUsd, 4))
  return ('  %s%d responses · in %d · out %d · cache write %d (5m %d, 1h %d) · cache read %d · %s'):format(
    pad(label, 10),
    usage.assistantMessages,
    usage.input,
    usage.output,
    usage.cacheCreation,
    usage.cache5m,
    usage.cache1h,
    usage.cacheRead,
    usd
  )
end

local function tokens_or_unknown(tokens)
  return tokens == nil and '?' or M.tokens(tokens)
end

local function memory_line(memory, now)
  if memory == nil then
    return nil
  end
  local parts = { memory.extractedAt and ('last extraction ' .. M.age(memory.extractedAt, now)) or 'no extraction yet' }
  if memory.lock ~= nil then
    table.insert(parts, 'lock held by ' .. one_line(memory.lock.owner))
  end
  table.insert(parts, 'extractions cost $' .. to_fixed(memory.spentUsd, 4))
  return '  memory    ' .. table.concat(parts, ' · ')
end

-- Claude Code's warning and error buffers (20,000 tokens each) make one figure: said once, with
-- why, as memctl's views/session-detail.ts warningText.
local THRESHOLD_BUFFER_TOKENS = '20,000'
local function warning_text(threshold)
  if threshold.warningAt ~= threshold.errorAt then
    return ('warning %s · error %s'):format(M.tokens(threshold.warningAt), M.tokens(threshold.errorAt))
  end
  return ("warning/error at %s (Claude Code's warning and error buffers are both %s)"):format(M.tokens(threshold.warningAt), THRESHOLD_BUFFER_TOKENS)
end

-- The detail buffer of a session: what `memctl status SESSION` shows, and the shared line.
function M.session_detail(session, now)
  local threshold, compactions, usage = session.threshold, session.compactions, session.usage
  local last = ''
  if compactions.lastTrigger ~= nil then
    last = (' (last %s, %s → %s)'):format(compactions.lastTrigger, tokens_or_unknown(compactions.lastPreTokens), tokens_or_unknown(compactions.lastPostTokens))
  end
  local lines = {
    M.title_of(session) .. '  ' .. session.sessionId .. (session.gone and ' (transcript deleted)' or ''),
    '  project   ' .. one_line(session.cwd or session.project) .. (session.gitBranch and (' (' .. one_line(session.gitBranch) .. ')') or ''),
    '  model     ' .. (session.model or '-'),
    ('  activity  %s → %s (%s)'):format(session.firstActivity or '-', session.lastActivity or '-', M.age(session.lastActivity, now)),
    '  context   ' .. M.context_bar(session.contextTokens, threshold),
    ('  state     %s, %s tokens left · %s · %s · window %s'):format(
      threshold.state,
      M.tokens(threshold.tokensLeft),
      warning_text(threshold),
      compacts_when_refused(threshold) and 'compacts when the API refuses the request (at the window)' or ('blocking ' .. M.tokens(threshold.blockingAt)),
      M.tokens(threshold.window)
    ),
    '  line      ' .. M.status_line(session, now),
    usage_line('main', usage.main),
    usage_line('subagents', usage.sidechain),
  }
  if session.compactionFiles > 0 or usage.compaction.assistantMessages > 0 then
    table.insert(lines, usage_line('compaction', usage.compaction))
  end
  table.insert(lines, usage_line('total', usage.total))
  table.insert(lines, ('  compacted %d×%s'):format(compactions.count, last))
  -- Issue 32: what Claude Code's last compaction kept of the session's facts (docs/survival.md).
  if session.lastCompaction ~= nil then
    local score = session.lastCompaction
    table.insert(lines, ('  survival  %d/%d facts kept by the last compaction\'s summary'):format(score.kept, score.kept + score.lost))
  end
  table.insert(lines, ('  since last memory extraction: %d tool calls, +%s tokens'):format(session.sinceExtraction.toolCalls, M.tokens(session.sinceExtraction.tokenGrowth)))
  local memory = memory_line(session.sessionMemory, now)
  if memory ~= nil then
    table.insert(lines, memory)
  end
  table.insert(
    lines,
    ('  index     %d entries, %d subagent transcripts, %d compaction transcripts, %d bad lines skipped'):format(session.entries, session.sidechainFiles, session.compactionFiles, session.badLines)
  )
  return lines
end

-- `:Memd status`: the daemon, as the head of `memctl status`, then the editor's session.
function M.daemon_status(status, session, cwd, now)
  local paths, counts, ingest = status.paths, status.counts, status.ingest
  local lines = {
    ('memd %s running (pid %d, up %s%s)'):format(status.version, status.pid, M.duration(status.uptimeMs), status.socketActivated and ', socket-activated' or ''),
    '  socket    ' .. paths.socket,
    '  state     ' .. paths.stateDir,
    ('  database  %s (schema %d)'):format(paths.database, status.database.schemaVersion),
    '  log       ' .. (paths.log or 'stderr (journal or foreground)'),
    '  config    ' .. paths.config,
    '  projects  ' .. paths.projectsDir,
    ('  clients   %d connected, %d subscriptions, %d requests served, %d protocol errors'):format(counts.connections, counts.subscriptions, counts.requestsServed, counts.protocolErrors),
    ('  process   %s RSS, %s heap'):format(M.bytes(status.memory.rssBytes), M.bytes(status.memory.heapUsedBytes)),
    ('  ingest    %d sessions, %d files, %d entries, %s read%s'):format(
      ingest.stats.sessions,
      ingest.stats.files,
      ingest.stats.entries,
      M.bytes(ingest.stats.bytesRead),
      ingest.stats.badLines > 0 and (', ' .. ingest.stats.badLines .. ' bad lines skipped') or ''
    ),
  }
  if ingest.progress.state ~= 'live' then
    table.insert(lines, ('  backfill  %s: %d/%d files'):format(ingest.progress.state, ingest.progress.filesDone, ingest.progress.filesTotal))
  end
  table.insert(lines, '')
  if session == nil then
    table.insert(lines, 'no session of ' .. cwd .. ' is known to memd')
  else
    table.insert(lines, ('%s  %s  %s'):format(session.sessionId:sub(1, SESSION_ID_CHARS), M.title_of(session), M.status_line(session, now)))
  end
  return lines
end

-- `:Memd summary`: the session memory (summary.md) under what memctl memory summary prints.
function M.summary(result)
  if result.text == nil then
    return { ('no session memory yet for %s (it would be %s); memctl memory extract %s makes one'):format(result.sessionId, result.path, result.sessionId) }
  end
  local tokens = ''
  if result.summarizer == 'anthropic' then
    tokens = (', %d in / %d out tokens, %s'):format(result.inputTokens, result.outputTokens, result.costUsd and ('$' .. to_fixed(result.costUsd, 4)) or 'cost unknown')
  end
  local lines = {
    'session memory of ' .. result.sessionId,
    '  file       ' .. result.path,
    '  extracted  ' .. (result.extractedAt or 'not by memd') .. (result.summarizer and (' by the ' .. result.summarizer .. ' summarizer' .. tokens) or ''),
    '  covers     up to ' .. (result.lastUuid or 'an unknown message'),
    '',
  }
  return vim.list_extend(lines, vim.split((result.text:gsub('%s+$', '')), '\n', { plain = true }))
end

-- memctl compact's `kilo`: exact below 10K (with thousands separators), else rounded.
local function kilo(tokens)
  if tokens >= 10000 then
    return js_number(js_round(tokens / 1000)) .. 'K'
  end
  local text = js_number(tokens)
  local whole, rest = text:match('^(%-?%d+)(.*)$')
  if whole == nil then
    return text
  end
  return whole:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^(%-?),', '%1') .. rest
end

local LOST_KINDS = { { 'user messages', 'userMessages' }, { 'file paths', 'filePaths' }, { 'identifiers', 'identifiers' }, { 'errors', 'errors' } }

-- `:Memd compact`: a preview of compact.auto (memd never changes the transcript): tokens before
-- and after, what was done, everything that would be lost, and the summary.
function M.compaction(result)
  local saved = result.preTokens - result.postTokens
  local lines = {
    result.method .. ' compaction of ' .. result.sessionId .. ' (a preview: the transcript is not changed)',
    ('  tokens   %s → %s (%s %s)'):format(kilo(result.preTokens), kilo(result.postTokens), saved >= 0 and 'saves' or 'adds', kilo(math.abs(saved))),
    '  messages ' .. #result.messages .. (result.keptFromUuid and (', kept verbatim from ' .. result.keptFromUuid) or ''),
  }
  if result.fallback ~= nil then
    table.insert(lines, '  fallback the offline summary: ' .. one_line(result.fallback.reason))
  end
  local order, counts = {}, {}
  for _, action in ipairs(result.actions) do
    if counts[action.kind] == nil then
      table.insert(order, action.kind)
      counts[action.kind] = 0
    end
    counts[action.kind] = counts[action.kind] + 1
  end
  if #order > 0 then
    local parts = {}
    for _, kind in ipairs(order) do
      table.insert(parts, counts[kind] .. ' ' .. kind)
    end
    table.insert(lines, '  actions  ' .. table.concat(parts, ', '))
  end
  local total = 0
  for _, kind in ipairs(LOST_KINDS) do
    total = total + #result.lost[kind[2]]
  end
  table.insert(lines, total == 0 and '  lost     nothing' or ('  lost     %d item%s'):format(total, total == 1 and '' or 's'))
  for _, kind in ipairs(LOST_KINDS) do
    local items = result.lost[kind[2]]
    if #items > 0 then
      table.insert(lines, ('    %s (%d):'):format(kind[1], #items))
      for _, item in ipairs(items) do
        table.insert(lines, '      - ' .. one_line(item))
      end
    end
  end
  vim.list_extend(lines, survival.lines(result.survival))
  if result.summary ~= nil then
    table.insert(lines, '')
    table.insert(lines, 'summary:')
    vim.list_extend(lines, vim.split(result.summary, '\n', { plain = true }))
  end
  return lines
end

-- `:Memd handoff` when the written file cannot be shown: the result and the text memd wrote.
function M.handoff(result)
  local kind = result.partial and 'partial handoff (HANDOFF_AUTO_PARTIAL)' or ('handoff by the ' .. (result.summarizer or 'offline') .. ' summarizer')
  local lines = {
    kind .. ' of ' .. (result.sessionId or 'an unindexed session'),
    '  file      ' .. result.path .. (result.gitignoreUpdated and ' (added to .gitignore)' or ''),
    ('  files     %d touched'):format(#result.facts.filesTouched),
    ('  commands  %d run, %d failing'):format(#result.facts.commands, #result.facts.failing),
    '',
  }
  return vim.list_extend(lines, vim.split(result.text, '\n', { plain = true }))
end

return M
