-- `:Memd status|sessions|summary|handoff|compact [SESSION]`. Each command opens its buffer at once
-- with a line saying what it waits for, and fills it when memd answers: nothing here waits.
-- SESSION is a full id or a unique prefix; without it, the most recent session of the editor's cwd.
local buffers = require('memd.buffers')
local config = require('memd.config')
local forecast = require('memd.forecast')
local memd = require('memd')
local tracker = require('memd.tracker')
local validate = require('memd.validate')
local views = require('memd.views')

local M = {}

-- `:Memd sessions` shows one page; memctl sessions pages through the rest.
local SESSIONS_PAGE = 200
-- Session ids are UUIDs; the daemon takes at most 200 characters (shared/protocol/methods.ts).
local MAX_SESSION_ARG = 200

-- Line numbers of `:Memd sessions` to session ids, per buffer, for <CR>.
local rows_by_buffer = {}

local function report(message)
  vim.notify('memd: ' .. message, vim.log.levels.ERROR, { title = 'memd' })
end

-- Calls `method` and hands `render` the validated answer; a failure shows in the buffer and as a
-- notification. `buf` holds the waiting line meanwhile.
local function fill_from(buf, method, params, shape, render, timeout_ms)
  memd.request(method, params, function(err, result)
    local problem = err and err.message or validate.problem(shape, result)
    if problem then
      buffers.fill(buf, { 'memd: ' .. method .. ' failed: ' .. problem })
      return report(method .. ': ' .. problem)
    end
    buffers.fill(buf, render(result))
  end, timeout_ms)
end

local function waiting(method)
  return { 'waiting for memd (' .. method .. ') …' }
end

-- `callback(session_id, cwd_session)`: the id given, else the editor's session (also handed over).
local function resolve_session(arg, callback)
  if arg ~= nil then
    if #arg > MAX_SESSION_ARG or not arg:match('^[%w%-]+$') then
      return report('not a session id: ' .. arg)
    end
    return callback(arg, nil)
  end
  local cwd = tracker.editor_cwd()
  memd.request('sessions.list', { project = cwd, limit = 1 }, function(err, list)
    local problem = err and err.message or validate.problem('session_list', list)
    if problem then
      return report('sessions.list: ' .. problem)
    end
    local session = list.sessions[1]
    if session == nil then
      return report('no session of ' .. cwd .. ' is known to memd; :Memd sessions lists them, and each command takes a SESSION')
    end
    callback(session.sessionId, session)
  end)
end

-- JSON-RPC's code for a method the daemon does not know: a memd from before `usage.status`.
local METHOD_NOT_FOUND = -32601

-- The session's forecasts under its details (issue 31), once memd answers `usage.status`; a memd
-- without the method leaves them out quietly, another failure says why on the last line.
local function add_forecasts(buf, session_id, lines)
  memd.request('usage.status', { sessionId = session_id }, function(err, result)
    if err and err.code == METHOD_NOT_FOUND then
      return
    end
    local problem = err and err.message or validate.problem('usage_status', result)
    local more = problem and { '  forecast  memd could not forecast: ' .. problem } or forecast.view_lines(result, tracker.now_ms())
    buffers.fill(buf, vim.list_extend(vim.deepcopy(lines), more))
  end)
end

function M.open_session(session_id, here)
  local buf = buffers.show('memd://session/' .. session_id, waiting('sessions.get'), here)
  fill_from(buf, 'sessions.get', { sessionId = session_id }, 'session', function(session)
    local lines = views.session_detail(session, tracker.now_ms())
    add_forecasts(buf, session_id, lines)
    return lines
  end)
end

local function open_row()
  local buf = vim.api.nvim_get_current_buf()
  local rows = rows_by_buffer[buf] or {}
  local session_id = rows[vim.api.nvim_win_get_cursor(0)[1]]
  if session_id ~= nil then
    M.open_session(session_id, true)
  end
end

local handlers = {}

function handlers.status()
  local cwd = tracker.editor_cwd()
  local buf = buffers.show('memd://status', waiting('daemon.status'))
  local function fill(session)
    fill_from(buf, 'daemon.status', nil, 'daemon_status', function(status)
      local lines = views.daemon_status(status, session, cwd, tracker.now_ms())
      if session then
        add_forecasts(buf, session.sessionId, lines)
      end
      return lines
    end)
  end
  memd.request('sessions.list', { project = cwd, limit = 1 }, function(list_err, list)
    local row = not list_err and validate.problem('session_list', list) == nil and list.sessions[1] or nil
    if not row then
      return fill(nil)
    end
    -- sessions.get's answer, as the status line has it: Claude Code's reports and the last
    -- compaction's survival score are not in a list row.
    memd.request('sessions.get', { sessionId = row.sessionId }, function(err, session)
      fill((not err and validate.problem('session', session) == nil) and session or row)
    end)
  end)
end

function handlers.sessions()
  local buf = buffers.show('memd://sessions', waiting('sessions.list'))
  if rows_by_buffer[buf] == nil then
    vim.keymap.set('n', '<CR>', open_row, { buffer = buf, desc = 'memd: open this session' })
  end
  rows_by_buffer[buf] = {}
  fill_from(buf, 'sessions.list', { limit = SESSIONS_PAGE }, 'session_list', function(list)
    local lines, ids = views.sessions(list.sessions, tracker.now_ms())
    rows_by_buffer[buf] = ids
    if list.nextCursor ~= nil then
      table.insert(lines, ('… more sessions than %d: memctl sessions lists them all'):format(SESSIONS_PAGE))
    end
    return lines
  end)
end

function handlers.summary(arg)
  resolve_session(arg, function(session_id)
    local buf = buffers.show('memd://summary/' .. session_id, waiting('memory.summary'))
    fill_from(buf, 'memory.summary', { sessionId = session_id }, 'memory_summary', views.summary)
  end)
end

function handlers.compact(arg)
  resolve_session(arg, function(session_id)
    local buf = buffers.show('memd://compact/' .. session_id, waiting('compact.auto'))
    -- force: a preview at any size; memd's threshold gate is for compacting, which this is not.
    fill_from(buf, 'compact.auto', { sessionId = session_id, force = true }, 'compaction', views.compaction, config.get().slow_request_timeout_ms)
  end)
end

local function generate_handoff(session_id, cwd)
  vim.notify('memd: writing the handoff of ' .. session_id:sub(1, 8) .. ' to ' .. cwd .. '/docs/handoff-context.md …', vim.log.levels.INFO, { title = 'memd' })
  memd.request('handoff.generate', { sessionId = session_id, cwd = cwd }, function(err, result)
    local problem = err and err.message or validate.problem('handoff', result)
    if problem then
      return report('handoff.generate: ' .. problem)
    end
    if vim.fn.filereadable(result.path) == 1 and buffers.open_file(result.path) then
      return
    end
    -- Not readable here, or open with unsaved changes: the text memd wrote, apart.
    buffers.show('memd://handoff/' .. session_id, views.handoff(result))
  end, config.get().slow_request_timeout_ms)
end

-- The handoff goes to the session's cwd: the editor's for its own session, else the session's.
function handlers.handoff(arg)
  resolve_session(arg, function(session_id, cwd_session)
    if cwd_session ~= nil then
      return generate_handoff(cwd_session.sessionId, tracker.editor_cwd())
    end
    memd.request('sessions.get', { sessionId = session_id }, function(err, session)
      local problem = err and err.message or validate.problem('session', session)
      if problem then
        return report('sessions.get: ' .. problem)
      end
      if session.cwd == nil then
        return report('the cwd of ' .. session_id .. ' is not known, so there is nowhere to write its handoff')
      end
      generate_handoff(session.sessionId, session.cwd)
    end)
  end)
end

-- What each subcommand takes, for the usage message.
local USAGE = {
  status = '',
  sessions = '',
  summary = ' [SESSION]',
  handoff = ' [SESSION]',
  compact = ' [SESSION]',
}

local NAMES = { 'status', 'sessions', 'summary', 'handoff', 'compact' }

local function usage()
  local lines = {}
  for _, name in ipairs(NAMES) do
    table.insert(lines, ':Memd ' .. name .. USAGE[name])
  end
  return table.concat(lines, ', ')
end

function M.run(args)
  local name, arg = args[1], args[2]
  if name == 'search' then
    return report('search is not served by this memd yet (see :help memd-search)')
  end
  local handler = name and handlers[name]
  if handler == nil then
    return report((name and ('unknown subcommand ' .. name .. '; ') or '') .. 'use ' .. usage())
  end
  local takes_session = USAGE[name] ~= ''
  if #args > (takes_session and 2 or 1) then
    return report(':Memd ' .. name .. ' takes' .. (takes_session and ' at most one SESSION' or ' no arguments'))
  end
  handler(arg)
end

function M.complete(lead, line)
  if line:match('^%s*%S+%s+%S*$') then
    return vim.tbl_filter(function(name)
      return name:sub(1, #lead) == lead
    end, NAMES)
  end
  return {}
end

return M
