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
    set_session(not problem and list.sessions[1] or nil)
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
    set_session(session)
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
