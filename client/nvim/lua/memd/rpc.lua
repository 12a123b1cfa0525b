-- A JSON-RPC 2.0 connection to memd over its Unix socket (DESIGN.md §3): one JSON message per
-- line, `daemon.version` first, then `events.subscribe`. All I/O goes through vim.loop callbacks,
-- and everything those callbacks learn is handled in vim.schedule, so the editor never waits on
-- the daemon. When the socket closes, or the daemon says `daemon.stopping`, the connection is made
-- again after a backoff (doubling up to a cap) and subscribes again.
local uv = vim.uv or vim.loop
local validate = require('memd.validate')

local M = {}

-- shared/protocol/results.ts PROTOCOL_VERSION: the wire format this plugin speaks.
M.PROTOCOL_VERSION = 1
-- DESIGN.md §3: no frame is larger; a longer line without its newline is not memd talking.
local MAX_FRAME_BYTES = 16 * 1024 * 1024
-- What the plugin listens to: the statusline's session, threshold notifications, restarts.
M.TOPICS = { 'session.updated', 'session.thresholdCrossed', 'daemon.stopping' }
-- JSON null becomes nil: every field that may be null is optional for validate.lua.
local DECODE_OPTIONS = { luanil = { object = true, array = true } }

local Connection = {}
Connection.__index = Connection

-- hooks: socket_path() -> path; options() -> config table; on_event(topic, params);
-- on_state(state) with state one of idle, connecting, ready, waiting.
function M.new(hooks)
  return setmetatable({
    hooks = hooks,
    state = 'idle',
    -- Bumped for every socket: callbacks of an older one are ignored.
    generation = 0,
    next_id = 0,
    pending = {},
    queue = {},
    failures = 0,
    parts = {},
    buffered = 0,
  }, Connection)
end

local function close_handle(handle)
  if handle ~= nil and not handle:is_closing() then
    handle:close()
  end
end

-- Every callback runs on its own in the main loop: an error in one does not stop the reader.
local function deliver(callback, err, result)
  vim.schedule(function()
    callback(err, result)
  end)
end

function Connection:set_state(state)
  if self.state == state then
    return
  end
  self.state = state
  self.hooks.on_state(state)
end

function Connection:close_socket()
  self.generation = self.generation + 1
  close_handle(self.pipe)
  self.pipe = nil
  self.parts = {}
  self.buffered = 0
end

-- Fails every request sent or waiting to be sent.
function Connection:fail_all(message)
  local pending, queue = self.pending, self.queue
  self.pending, self.queue = {}, {}
  for _, request in pairs(pending) do
    close_handle(request.timer)
    deliver(request.callback, { message = message })
  end
  for _, request in ipairs(queue) do
    deliver(request.callback, { message = message })
  end
end

function Connection:schedule_reconnect(delay)
  local options = self.hooks.options()
  self.failures = self.failures + 1
  delay = delay or math.min(options.backoff_initial_ms * 2 ^ (self.failures - 1), options.backoff_max_ms)
  close_handle(self.timer)
  self.timer = uv.new_timer()
  self.next_attempt_at = uv.now() + delay
  self.timer:start(delay, 0, function()
    vim.schedule(function()
      if self.state == 'waiting' then
        self:connect()
      end
    end)
  end)
  self:set_state('waiting')
end

-- The socket is gone or unusable: fail what waits on it, then try again after the backoff.
function Connection:lost(reason, delay)
  self.last_error = reason
  self.info = nil
  self:close_socket()
  self:fail_all(reason)
  self:schedule_reconnect(delay)
end

function Connection:connect()
  close_handle(self.timer)
  self.timer = nil
  self:close_socket()
  local generation = self.generation
  local path = self.hooks.socket_path()
  self:set_state('connecting')
  if #path > require('memd.config').MAX_SOCKET_PATH_BYTES then
    return self:lost('socket path is ' .. #path .. ' bytes, over the 107-byte limit of Unix sockets: ' .. path, self.hooks.options().backoff_max_ms)
  end
  local pipe = uv.new_pipe(false)
  self.pipe = pipe
  -- luv reports some failures by throwing and others by returning nil and the error.
  local ok, started, err = pcall(pipe.connect, pipe, path, function(connect_err)
    vim.schedule(function()
      self:on_connect(generation, path, connect_err)
    end)
  end)
  if not ok or not started then
    self:lost('cannot connect to ' .. path .. ': ' .. tostring(ok and err or started))
  end
end

function Connection:on_connect(generation, path, err)
  if generation ~= self.generation then
    return
  end
  if err then
    -- What to do about it, in memctl's words (client/client.ts NoDaemon): the plugin never starts memd.
    local hint = (err:find('ENOENT') or err:find('ECONNREFUSED')) and ' (memd is not running; start it with `memctl start`)' or ''
    return self:lost('cannot connect to ' .. path .. ': ' .. err .. hint)
  end
  self.pipe:read_start(function(read_err, chunk)
    vim.schedule(function()
      self:on_read(generation, read_err, chunk)
    end)
  end)
  self:handshake(generation)
end

function Connection:handshake(generation)
  local options = self.hooks.options()
  self:send('daemon.version', nil, options.request_timeout_ms, function(err, info)
    if generation ~= self.generation then
      return
    end
    local problem = err and err.message or validate.problem('version', info)
    if problem then
      return self:lost('daemon.version failed: ' .. problem)
    end
    if info.protocol ~= M.PROTOCOL_VERSION then
      -- Retrying soon cannot help: one of the two has to be upgraded first.
      local message = ('memd %s speaks protocol %d, this plugin protocol %d: update the one that is older'):format(info.version, info.protocol, M.PROTOCOL_VERSION)
      return self:lost(message, options.backoff_max_ms)
    end
    self:send('events.subscribe', { topics = M.TOPICS }, options.request_timeout_ms, function(sub_err)
      if generation ~= self.generation then
        return
      end
      if sub_err then
        return self:lost('events.subscribe failed: ' .. sub_err.message)
      end
      self.info = info
      self.failures = 0
      self.last_error = nil
      local queue = self.queue
      self.queue = {}
      self:set_state('ready')
      for _, request in ipairs(queue) do
        self:send(request.method, request.params, request.timeout_ms, request.callback)
      end
    end)
  end)
end

-- Writes one request; `callback(err, result)` is called once, scheduled, with err
-- `{ message, code?, kind?, data? }`.
function Connection:send(method, params, timeout_ms, callback)
  self.next_id = self.next_id + 1
  local id = self.next_id
  local ok, line = pcall(vim.json.encode, { jsonrpc = '2.0', id = id, method = method, params = params or vim.empty_dict() })
  if not ok then
    return deliver(callback, { message = 'cannot encode the params of ' .. method .. ': ' .. tostring(line) })
  end
  local generation = self.generation
  local timer = uv.new_timer()
  self.pending[id] = { callback = callback, timer = timer, method = method }
  timer:start(timeout_ms, 0, function()
    vim.schedule(function()
      self:on_timeout(generation, id, timeout_ms)
    end)
  end)
  local function failed(write_err)
    vim.schedule(function()
      if generation == self.generation then
        self:lost('cannot write to memd: ' .. tostring(write_err))
      end
    end)
  end
  -- A write that fails at once returns the error (and never calls back); a later failure calls back.
  local queued, write_err = self.pipe:write(line .. '\n', function(later_err)
    if later_err then
      failed(later_err)
    end
  end)
  if not queued then
    failed(write_err)
  end
end

function Connection:on_timeout(generation, id, timeout_ms)
  local request = self.pending[id]
  if generation ~= self.generation or request == nil then
    return
  end
  self.pending[id] = nil
  close_handle(request.timer)
  -- The daemon stops the work too (docs/protocol.md, Cancellation).
  local ok, cancel = pcall(vim.json.encode, { jsonrpc = '2.0', method = '$/cancelRequest', params = { id = id } })
  if ok then
    self.pipe:write(cancel .. '\n')
  end
  deliver(request.callback, { message = ('no answer from memd within %g s'):format(timeout_ms / 1000) })
end

function Connection:on_read(generation, err, chunk)
  if generation ~= self.generation then
    return
  end
  if err then
    return self:lost('reading from memd failed: ' .. err)
  end
  if chunk == nil then
    return self:lost('memd closed the connection')
  end
  local from = 1
  while generation == self.generation do
    local newline = chunk:find('\n', from, true)
    if newline == nil then
      break
    end
    self.parts[#self.parts + 1] = chunk:sub(from, newline - 1)
    local line = table.concat(self.parts)
    self.parts = {}
    self.buffered = 0
    from = newline + 1
    self:on_line(line)
  end
  if generation ~= self.generation or from > #chunk then
    return
  end
  self.parts[#self.parts + 1] = chunk:sub(from)
  self.buffered = self.buffered + #chunk - from + 1
  if self.buffered > MAX_FRAME_BYTES then
    self:lost('memd sent a message over 16 MiB')
  end
end

local function as_error(value)
  if type(value) ~= 'table' or type(value.message) ~= 'string' then
    return { message = 'memd answered with a malformed error' }
  end
  local data = type(value.data) == 'table' and value.data or nil
  return { message = value.message, code = value.code, kind = data and data.kind, data = data }
end

function Connection:on_line(line)
  if line:match('^%s*$') then
    return
  end
  local ok, message = pcall(vim.json.decode, line, DECODE_OPTIONS)
  if not ok or type(message) ~= 'table' then
    return self:lost('memd sent a line that is not JSON')
  end
  if message.method == nil and message.id ~= nil then
    local request = self.pending[message.id]
    if request == nil then
      return -- the answer to a request that timed out
    end
    self.pending[message.id] = nil
    close_handle(request.timer)
    if message.error ~= nil then
      return deliver(request.callback, as_error(message.error))
    end
    return deliver(request.callback, nil, message.result)
  end
  if type(message.method) ~= 'string' or message.id ~= nil then
    return -- memd sends no requests to clients
  end
  self:emit(message.method, message.params)
  if message.method == 'daemon.stopping' then
    local reason = type(message.params) == 'table' and type(message.params.reason) == 'string' and message.params.reason or 'no reason given'
    -- Back soon if it restarts: the first attempt after the shortest wait.
    self.failures = 0
    return self:lost('memd is stopping (' .. reason .. ')')
  end
end

-- Events, like answers, are handled in their own turn of the main loop, in the order they came.
function Connection:emit(topic, params)
  vim.schedule(function()
    self.hooks.on_event(topic, params)
  end)
end

-- Connects unless connected, connecting or stopped for good.
function Connection:start()
  if self.state == 'idle' then
    self:connect()
  end
end

-- Sends when connected; otherwise connects now (not waiting for the backoff) and sends once the
-- handshake is done, or fails with why there is no connection.
function Connection:request(method, params, callback, timeout_ms)
  timeout_ms = timeout_ms or self.hooks.options().request_timeout_ms
  if self.state == 'ready' then
    return self:send(method, params, timeout_ms, callback)
  end
  table.insert(self.queue, { method = method, params = params, callback = callback, timeout_ms = timeout_ms })
  if self.state ~= 'connecting' then
    self:connect()
  end
end

function Connection:stop()
  close_handle(self.timer)
  self.timer = nil
  self:close_socket()
  self:fail_all('the memd connection was stopped')
  self.info = nil
  self:set_state('idle')
end

-- Milliseconds until the next attempt while waiting, else nil.
function Connection:retry_in()
  if self.state ~= 'waiting' or self.next_attempt_at == nil then
    return nil
  end
  return math.max(0, self.next_attempt_at - uv.now())
end

return M
