-- memd for Neovim: the context line of the editor's Claude Code session, commands that show
-- memd's answers in scratch buffers, and notifications when a session crosses a threshold.
-- Talks to a running memd over its socket; never starts one (memctl start, or systemd, does).
--
--   require('memd').setup({})          -- options: :help memd-options
--   require('memd').statusline()       -- for lualine or 'statusline'
local config = require('memd.config')
local rpc = require('memd.rpc')
local tracker = require('memd.tracker')

local M = {}

local connection = nil

local function on_event(topic, params)
  if topic == 'session.updated' then
    tracker.on_updated(params)
  elseif topic == 'session.thresholdCrossed' then
    tracker.on_threshold(params)
  end
end

local function ensure_connection()
  if connection == nil then
    connection = rpc.new({
      socket_path = function()
        return (config.socket_path())
      end,
      options = config.get,
      on_event = on_event,
      on_state = tracker.on_state,
    })
    tracker.attach(connection, config.get)
  end
  return connection
end

-- Connects to memd (in the background: this returns at once). Called by the plugin file when
-- Neovim starts, unless g:memd_no_autoconnect is set.
function M.start()
  ensure_connection():start()
end

-- Closes the connection and stops reconnecting; start() or any command connects again.
function M.stop()
  if connection ~= nil then
    connection:stop()
    tracker.detach()
    connection = nil
  end
end

-- Sets options (an error names a bad one) and connects. Called again with a new socket, it
-- connects to that one.
function M.setup(options)
  local before = config.socket_path()
  config.set(options)
  if connection ~= nil and config.socket_path() ~= before then
    M.stop()
  elseif connection ~= nil then
    -- The refresh timer takes the new interval.
    tracker.attach(connection, config.get)
  end
  M.start()
end

-- The context string of the most recent session whose cwd is the editor's cwd, as every memd
-- client shows it; '' when there is none or memd is not running. Instant: no I/O here.
-- `width`: the characters the line may take (segments drop out to fit; default 120).
local start_scheduled = false

function M.statusline(width)
  if connection == nil and not start_scheduled then
    -- The first call connects, after the redraw that asked (a statusline is drawn under textlock);
    -- the line fills in once memd answers.
    start_scheduled = true
    vim.schedule(function()
      start_scheduled = false
      M.start()
    end)
  end
  return tracker.line(width)
end

-- Calls a memd method: `callback(err, result)` runs scheduled, err `{ message, code?, kind? }`.
function M.request(method, params, callback, timeout_ms)
  ensure_connection():request(method, params, callback, timeout_ms)
end

-- The connection as :checkhealth memd and the tests see it.
function M.status()
  local path, source = config.socket_path()
  local c = connection
  return {
    socket = path,
    socket_source = source,
    state = c and c.state or 'idle',
    daemon = c and c.info or nil,
    last_error = c and c.last_error or nil,
    retry_in_ms = c and c:retry_in() or nil,
    tracker = tracker.snapshot(),
  }
end

return M
