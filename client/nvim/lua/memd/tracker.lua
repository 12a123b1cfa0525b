-- The session of the editor's directory: the most recent one whose cwd is the editor's cwd,
-- asked for when the connection is made and the directory changes, kept current by
-- session.updated events (a slow timer is the fallback), and held here so that the statusline
-- never waits on anything. Also turns session.thresholdCrossed into vim.notify.
local format = require('memd.format')
local validate = require('memd.validate')
local uv = vim.uv or vim.loop

local M = {}

local state = {
  -- The connection (rpc.lua) and config.get, from attach().
  connection = nil,
  options = nil,
  -- The cwd the session was asked for, and the answer (a validated SessionSummary or nil).
  cwd = nil,
  session = nil,
  -- Bumped for each question: an older answer is ignored.
  generation = 0,
  last_problem = nil,
  memo = {},
}

-- Without the trailing slash, as Claude Code records cwds.
function M.editor_cwd()
  return (vim.fn.getcwd():gsub('(.)/$', '%1'))
end

-- Epoch milliseconds (vim.loop.now() is monotonic, not a date).
function M.now_ms()
  if uv.gettimeofday then
    local seconds, micros = uv.gettimeofday()
    return seconds * 1000 + math.floor(micros / 1000)
  end
  return os.time() * 1000
end

local function set_session(session)
  state.session = session
  state.memo = {}
  pcall(vim.cmd, 'redrawstatus!')
end

-- What sessions.get adds to a list row or an update (issue 31): Claude Code's reports of the plan
-- window and the prompt cache, the deletions memd did not hold, and the last compaction's survival
-- score (issue 32). Kept across the updates of the same session until asked again.
local DETAIL_FIELDS = { 'reported', 'deletedNotHeld', 'lastCompaction' }

local function with_detail(session, from)
  if from == nil or from.sessionId ~= session.sessionId then
    return session
  end
  local merged = vim.tbl_extend('force', {}, session)
  for _, key in ipairs(DETAIL_FIELDS) do
    if merged[key] == nil then
      merged[key] = from[key]
    end
  end
  return merged
end

-- Asks sessions.get for the held session's reports; one question at a time, and one more after
-- it when asked meanwhile (the reports reach memd after the response its update was for).
local function refresh_detail()
  local connection, held = state.connection, state.session
  if connection == nil or connection.state ~= 'ready' or held == nil then
    return
  end
  if state.detail_asking then
    state.detail_again = true
    return
  end
  state.detail_asking, state.detail_again = true, false
  local generation, session_id = state.generation, held.sessionId
  connection:request('sessions.get', { sessionId = session_id }, function(err, session)
    state.detail_asking = false
    local current = state.session
    if not err and validate.problem('session', session) == nil and generation == state.generation and current ~= nil and current.sessionId == session_id then
      local merged = vim.tbl_extend('force', {}, current)
      for _, key in ipairs(DETAIL_FIELDS) do
        merged[key] = session[key]
      end
      set_session(merged)
    end
    if state.detail_again then
      refresh_detail()
    end
  end)
end

-- Asks for the most recent session of the editor's cwd (the line is empty until the answer).
function M.refresh()
  local connection = state.connection
  state.generation = state.generation + 1
  if connection == nil or connection.state ~= 'ready' then
    return set_session(nil)
  end
  local generation, cwd = state.generation, M.editor_cwd()
  if cwd ~= state.cwd then
    state.cwd = cwd
    set_session(nil)
  end
  connection:request('sessions.list', { project = cwd, limit = 1 }, function(err, list)
    if generation ~= state.generation then
      return
    end
    local problem = err and err.message or validate.problem('session_list', list)
    state.last_problem = problem
    local found = not problem and list.sessions[1] or nil
    set_session(found and with_detail(found, state.session) or nil)
    refresh_detail()
  end)
end

function M.on_state(connection_state)
  if connection_state == 'ready' then
    M.refresh()
  else
    state.generation = state.generation + 1
    set_session(nil)
  end
end

-- A session.updated event: taken when it is of the editor's cwd and at least as recent as the one held.
function M.on_updated(session)
  local problem = validate.problem('session', session)
  if problem then
    state.last_problem = 'session.updated: ' .. problem
    return
  end
  if session.cwd == nil or (session.cwd:gsub('(.)/$', '%1')) ~= state.cwd then
    return
  end
  local held = state.session
  if held == nil or held.sessionId == session.sessionId or (session.lastActivity or '') >= (held.lastActivity or '') then
    set_session(with_detail(session, held))
    refresh_detail()
  end
end

local LEVEL_BY_STATE = { ok = vim.log.levels.INFO, warning = vim.log.levels.WARN }

local function notify_crossing(event, session)
  local label = event.sessionId:sub(1, 8)
  if session ~= nil and session.title ~= nil then
    label = label .. ' (' .. session.title .. ')'
  end
  local line = format.status_line({ threshold = event.threshold }, { now = M.now_ms() })
  local message = ('memd: session %s went from %s to %s: %s'):format(label, event.from, event.to, line)
  vim.notify(message, LEVEL_BY_STATE[event.to] or vim.log.levels.ERROR, { title = 'memd' })
end

function M.on_threshold(event)
  local problem = validate.problem('threshold_crossed', event)
  local mode = state.options().notify
  if problem then
    state.last_problem = 'session.thresholdCrossed: ' .. problem
    return
  end
  if mode == false or state.connection == nil then
    return
  end
  local held = state.session
  if held ~= nil and held.sessionId == event.sessionId then
    return notify_crossing(event, held)
  end
  -- Which directory the session is of is not in the event: ask.
  state.connection:request('sessions.get', { sessionId = event.sessionId }, function(err, session)
    local known = not err and validate.problem('session', session) == nil
    if mode == 'all' then
      return notify_crossing(event, known and session or nil)
    end
    if known and session.cwd ~= nil and (session.cwd:gsub('(.)/$', '%1')) == M.editor_cwd() then
      notify_crossing(event, session)
    end
  end)
end

-- The context string of the editor's session; '' when there is none or memd is not connected.
-- No I/O: the session is already here, and the line is only formatted.
function M.line(width)
  local session = state.session
  if session == nil or state.connection == nil or state.connection.state ~= 'ready' then
    return ''
  end
  local columns = type(width) == 'number' and width or format.DEFAULT_COLUMNS
  local now = M.now_ms()
  -- The line only changes with the session, the width and the second (the memory's age).
  local second = math.floor(now / 1000)
  local memo = state.memo
  if memo.second ~= second or memo.columns ~= columns then
    memo.second, memo.columns = second, columns
    memo.line = format.status_line(format.facts(session), { columns = columns, now = now })
  end
  return memo.line
end

function M.attach(connection, options)
  state.connection = connection
  state.options = options
  if state.timer ~= nil then
    state.timer:close()
  end
  local every = options().refresh_ms
  state.timer = uv.new_timer()
  state.timer:start(every, every, function()
    vim.schedule(M.refresh)
  end)
  local group = vim.api.nvim_create_augroup('memd_tracker', { clear = true })
  vim.api.nvim_create_autocmd('DirChanged', { group = group, callback = M.refresh })
end

function M.detach()
  if state.timer ~= nil then
    state.timer:close()
    state.timer = nil
  end
  pcall(vim.api.nvim_del_augroup_by_name, 'memd_tracker')
  state.connection = nil
  set_session(nil)
end

-- What :checkhealth memd shows.
function M.snapshot()
  return { cwd = state.cwd, session = state.session, last_problem = state.last_problem }
end

return M
