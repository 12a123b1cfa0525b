-- Checks what comes off the socket against the shapes this plugin reads (shared/protocol/results.ts,
-- events.ts, handoff.ts), so that a daemon of another version, or something that is not memd at
-- all, gets a clear message instead of a Lua error in a view. JSON null is decoded as nil (see
-- rpc.lua), so a field that may be null is optional here. Fields the plugin does not read are not
-- checked: a newer daemon may add them.
local M = {}

local function optional(spec)
  return { _optional = spec }
end

local function array_of(spec)
  return { _array = spec }
end

local function one_of(...)
  return { _enum = { ... } }
end

local function describe(value)
  if value == nil then
    return 'nothing'
  end
  return type(value)
end

-- Returns nil when `value` fits `spec`, else a message naming the first field that does not.
local function check(value, spec, path)
  if type(spec) == 'string' then
    if type(value) ~= spec then
      return path .. ' should be a ' .. spec .. ', not ' .. describe(value)
    end
    if spec == 'number' and (value ~= value or value == math.huge or value == -math.huge) then
      return path .. ' should be a finite number'
    end
    return nil
  end
  if spec._optional ~= nil then
    if value == nil then
      return nil
    end
    return check(value, spec._optional, path)
  end
  if spec._enum ~= nil then
    for _, allowed in ipairs(spec._enum) do
      if value == allowed then
        return nil
      end
    end
    return path .. ' should be one of ' .. table.concat(spec._enum, ', ') .. ', not ' .. tostring(value)
  end
  if type(value) ~= 'table' then
    return path .. ' should be an object, not ' .. describe(value)
  end
  if spec._array ~= nil then
    for i, item in ipairs(value) do
      local problem = check(item, spec._array, path .. '[' .. (i - 1) .. ']')
      if problem then
        return problem
      end
    end
    return nil
  end
  for key, field in pairs(spec) do
    local problem = check(value[key], field, path .. '.' .. key)
    if problem then
      return problem
    end
  end
  return nil
end

local THRESHOLD_STATE = one_of('ok', 'warning', 'error', 'autocompact', 'blocking')

local THRESHOLD = {
  model = 'string',
  tokens = 'number',
  window = 'number',
  effectiveWindow = 'number',
  autoCompactAt = 'number',
  warningAt = 'number',
  errorAt = 'number',
  blockingAt = 'number',
  state = THRESHOLD_STATE,
  tokensLeft = 'number',
  percentUsed = 'number',
  autoCompactEnabled = 'boolean',
  -- Absent from a memd before Claude Code 2.1.197's reactive mode: threshold mode.
  autoCompactMode = optional(one_of('threshold', 'reactive')),
}

local USAGE = {
  input = 'number',
  output = 'number',
  cacheCreation = 'number',
  cacheRead = 'number',
  cache5m = 'number',
  cache1h = 'number',
  assistantMessages = 'number',
  costUsd = optional('number'),
}

M.version = {
  name = one_of('memd'),
  version = 'string',
  protocol = 'number',
  capabilities = array_of('string'),
}

M.session = {
  sessionId = 'string',
  project = 'string',
  cwd = optional('string'),
  gitBranch = optional('string'),
  title = optional('string'),
  model = optional('string'),
  firstActivity = optional('string'),
  lastActivity = optional('string'),
  gone = 'boolean',
  hasMainTranscript = optional('boolean'),
  contextTokens = 'number',
  threshold = THRESHOLD,
  usage = { main = USAGE, sidechain = USAGE, compaction = USAGE, total = USAGE },
  compactions = { count = 'number', lastTrigger = optional('string'), lastPreTokens = optional('number'), lastPostTokens = optional('number') },
  sinceExtraction = { toolCalls = 'number', tokenGrowth = 'number' },
  entries = 'number',
  sidechainFiles = 'number',
  compactionFiles = 'number',
  badLines = 'number',
  -- Older daemons do not report it: the line then leaves the memory segment out.
  sessionMemory = optional({
    extractedAt = optional('string'),
    lock = optional({ owner = 'string', expiresAt = 'number' }),
    spentUsd = 'number',
  }),
  -- The survival score of Claude Code's last recorded compaction (issue 32); older daemons send none.
  lastCompaction = optional({ kept = 'number', lost = 'number', recordedAt = 'string' }),
}

M.session_list = { sessions = array_of(M.session), total = optional('number'), nextCursor = optional('string') }

M.daemon_status = {
  pid = 'number',
  version = 'string',
  uptimeMs = 'number',
  socketActivated = 'boolean',
  paths = { socket = 'string', stateDir = 'string', database = 'string', log = optional('string'), config = 'string', projectsDir = 'string' },
  counts = { connections = 'number', subscriptions = 'number', requestsServed = 'number', protocolErrors = 'number' },
  memory = { rssBytes = 'number', heapUsedBytes = 'number' },
  database = { schemaVersion = 'number' },
  ingest = {
    progress = { state = one_of('starting', 'backfilling', 'live'), filesDone = 'number', filesTotal = 'number' },
    stats = { files = 'number', sessions = 'number', entries = 'number', badLines = 'number', bytesRead = 'number' },
  },
}

M.memory_summary = {
  sessionId = 'string',
  path = 'string',
  text = optional('string'),
  lastUuid = optional('string'),
  extractedAt = optional('string'),
  summarizer = optional('string'),
  inputTokens = 'number',
  outputTokens = 'number',
  costUsd = optional('number'),
}

M.compaction = {
  sessionId = 'string',
  method = 'string',
  messages = array_of('table'),
  summary = optional('string'),
  preTokens = 'number',
  postTokens = 'number',
  keptFromUuid = optional('string'),
  actions = array_of({ kind = 'string', id = 'string', tool = optional('string'), tokensBefore = 'number', tokensAfter = 'number' }),
  lost = { userMessages = array_of('string'), filePaths = array_of('string'), identifiers = array_of('string'), errors = array_of('string') },
  fallback = optional({ reason = 'string' }),
  -- Which of the session's facts the result keeps (issue 32); older daemons send none.
  survival = optional({ kept = 'number', lost = 'number', items = array_of({ kind = 'string', text = 'string', kept = 'boolean' }) }),
}

M.handoff = {
  sessionId = optional('string'),
  cwd = 'string',
  path = 'string',
  partial = 'boolean',
  summarizer = optional('string'),
  generatedAt = 'string',
  gitignoreUpdated = 'boolean',
  facts = { filesTouched = array_of('table'), commands = array_of('table'), failing = array_of('table') },
  text = 'string',
}

M.threshold_crossed = {
  sessionId = 'string',
  from = THRESHOLD_STATE,
  to = THRESHOLD_STATE,
  contextTokens = 'number',
  threshold = THRESHOLD,
}

M.stopping = { reason = optional('string') }

-- `usage.status` (shared/protocol/forecast.ts, issue 31): the figures forecast.lua words.
local PROVENANCE = one_of('official', 'estimated')
M.usage_status = {
  sessionId = 'string',
  autoCompact = {
    tokensLeft = 'number',
    turns = optional('number'),
    minutes = optional('number'),
    autoCompactEnabled = 'boolean',
    provenance = PROVENANCE,
    basis = 'string',
  },
  limit = {
    usedPercent = optional('number'),
    resetsAt = optional('number'),
    percentPerHour = optional('number'),
    reachedAt = optional('number'),
    resetFirst = 'boolean',
    provenance = PROVENANCE,
    basis = 'string',
  },
  cacheRebuild = {
    ttl = 'string',
    expiresAt = optional('number'),
    tokens = 'number',
    costUsd = optional('number'),
    provenance = PROVENANCE,
    basis = 'string',
  },
}

-- nil when `value` is a `name` (one of the specs above), else why not.
function M.problem(name, value)
  return check(value, M[name], name)
end

return M
