-- The plugin's options and the socket path. The path is resolved as memd resolves it
-- (shared/paths.ts, DESIGN.md §2): $MEMD_SOCKET, else $XDG_RUNTIME_DIR/memd/memd.sock, else the
-- state dir ($MEMD_STATE_DIR, or $XDG_STATE_HOME/memd, or ~/.local/state/memd) + /memd.sock.
local M = {}

M.defaults = {
  -- A socket path; nil: the one memd itself would use.
  socket = nil,
  -- The first wait before reconnecting, doubled after each failure up to backoff_max_ms: a
  -- restarted daemon is found within a second, a stopped one costs a connect every 30 s.
  backoff_initial_ms = 500,
  backoff_max_ms = 30000,
  -- Most answers take milliseconds; a daemon that does not answer in this time is treated as hung.
  request_timeout_ms = 15000,
  -- Handoffs and compactions may wait on a summarizer (60 s in DESIGN.md §5) and git (5 s).
  slow_request_timeout_ms = 90000,
  -- The statusline's session is refreshed from session.updated events; this timer is the
  -- fallback for a session started in this directory while no event named it.
  refresh_ms = 60000,
  -- vim.notify on session.thresholdCrossed: 'cwd' (the session of the editor's directory),
  -- 'all' (every session) or false.
  notify = 'cwd',
}

-- Unix socket paths are at most 107 bytes (sockaddr_un.sun_path, MAX_SOCKET_PATH_BYTES in paths.ts).
M.MAX_SOCKET_PATH_BYTES = 107

local options = vim.deepcopy(M.defaults)

local function non_empty(value)
  if value ~= nil and value ~= '' then
    return value
  end
  return nil
end

-- Node's path.resolve for the paths here: absolute against the editor's directory, normalized.
local function absolute(path)
  return (vim.fn.fnamemodify(path, ':p'):gsub('(.)/$', '%1'))
end

-- The socket path and where it came from (`setup`, `MEMD_SOCKET`, `XDG_RUNTIME_DIR`, `state dir`).
function M.socket_path()
  if options.socket ~= nil then
    return absolute(options.socket), 'setup({ socket })'
  end
  local explicit = non_empty(os.getenv('MEMD_SOCKET'))
  if explicit then
    return absolute(explicit), '$MEMD_SOCKET'
  end
  local runtime = non_empty(os.getenv('XDG_RUNTIME_DIR'))
  if runtime then
    return absolute(runtime) .. '/memd/memd.sock', '$XDG_RUNTIME_DIR'
  end
  local home = non_empty(os.getenv('HOME')) or vim.loop.os_homedir()
  local state_home = non_empty(os.getenv('XDG_STATE_HOME')) or (home .. '/.local/state')
  local state_dir = non_empty(os.getenv('MEMD_STATE_DIR')) or (state_home .. '/memd')
  return absolute(state_dir) .. '/memd.sock', 'the state dir'
end

local CHECKS = {
  socket = function(value)
    return value == nil or (type(value) == 'string' and value ~= ''), 'a non-empty path'
  end,
  notify = function(value)
    return value == 'cwd' or value == 'all' or value == false, "'cwd', 'all' or false"
  end,
}

local function positive_ms(value)
  return type(value) == 'number' and value >= 1 and value < math.huge, 'a number of milliseconds (1 or more)'
end

for _, key in ipairs({ 'backoff_initial_ms', 'backoff_max_ms', 'request_timeout_ms', 'slow_request_timeout_ms', 'refresh_ms' }) do
  CHECKS[key] = positive_ms
end

-- Merges `user` into the options; an unknown key or a bad value is an error naming it.
function M.set(user)
  if user == nil then
    return
  end
  if type(user) ~= 'table' then
    error('memd: setup() takes a table of options', 0)
  end
  local merged = vim.deepcopy(options)
  for key, value in pairs(user) do
    local check = CHECKS[key]
    if check == nil then
      error('memd: unknown option ' .. tostring(key) .. ' (see :help memd-options)', 0)
    end
    local ok, expected = check(value)
    if not ok then
      error('memd: option ' .. key .. ' takes ' .. expected .. ', not ' .. vim.inspect(value), 0)
    end
    merged[key] = value
  end
  if merged.backoff_max_ms < merged.backoff_initial_ms then
    error('memd: backoff_max_ms must not be below backoff_initial_ms', 0)
  end
  options = merged
end

function M.get()
  return options
end

return M
