-- :checkhealth memd. Reports what the plugin already knows (the connection's state, the daemon's
-- version, the statusline's session) and cheap local facts (the socket path, whether it exists):
-- a health check must not wait on the daemon either.
local M = {}

-- vim.health.start/ok/... (0.10+), vim.health.report_* (0.8, 0.9), or require('health') (0.7).
local function reporter()
  local health = vim.health or require('health')
  local function pick(new, old)
    return health[new] or health[old]
  end
  return {
    start = pick('start', 'report_start'),
    ok = pick('ok', 'report_ok'),
    info = pick('info', 'report_info'),
    warn = pick('warn', 'report_warn'),
    error = pick('error', 'report_error'),
  }
end

local function seconds(ms)
  return ('%.1f s'):format(ms / 1000)
end

function M.check()
  local report = reporter()
  local memd = require('memd')
  local config = require('memd.config')

  report.start('Neovim')
  if vim.fn.has('nvim-0.7') == 1 then
    report.ok('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. ' (0.7 or later)')
  else
    report.error('Neovim 0.7 or later is needed')
  end
  if vim.json == nil or (vim.uv or vim.loop) == nil then
    report.error('vim.json and vim.loop are needed')
  end

  report.start('socket')
  local status = memd.status()
  report.info(('socket %s (from %s)'):format(status.socket, status.socket_source))
  if #status.socket > config.MAX_SOCKET_PATH_BYTES then
    report.error(('the socket path is %d bytes, over the %d-byte limit of Unix sockets'):format(#status.socket, config.MAX_SOCKET_PATH_BYTES), {
      'set MEMD_SOCKET or XDG_RUNTIME_DIR to a shorter directory, or setup({ socket = ... })',
    })
  end
  local stat = (vim.uv or vim.loop).fs_stat(status.socket)
  if stat == nil then
    report.warn('no socket at ' .. status.socket .. ': memd is not running', { 'start it with `memctl start`, or `memctl install-service` for systemd' })
  elseif stat.type ~= 'socket' then
    report.error(status.socket .. ' is a ' .. stat.type .. ', not a socket')
  end

  report.start('connection')
  if status.state == 'ready' and status.daemon ~= nil then
    local daemon = status.daemon
    report.ok(('connected to memd %s (protocol %d, %d capabilities)'):format(daemon.version, daemon.protocol, #daemon.capabilities))
  elseif status.state == 'idle' then
    memd.start()
    report.warn('not connected yet: connecting now; run :checkhealth memd again')
  elseif status.state == 'connecting' then
    report.info('connecting')
  else
    local retry = status.retry_in_ms and (', next attempt in ' .. seconds(status.retry_in_ms)) or ''
    report.warn('not connected: ' .. (status.last_error or 'unknown') .. retry)
  end

  report.start('statusline')
  local tracked = status.tracker
  if tracked.session ~= nil then
    report.ok(('session %s of %s: %s'):format(tracked.session.sessionId:sub(1, 8), tracked.cwd, memd.statusline()))
  elseif status.state == 'ready' then
    report.info('no session of ' .. (tracked.cwd or require('memd.tracker').editor_cwd()) .. ' is known to memd (the line is empty)')
  end
  if tracked.last_problem ~= nil then
    report.warn('the last answer or event was not understood: ' .. tracked.last_problem)
  end
end

return M
