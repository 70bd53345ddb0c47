--- harness.probe: ask a harness-lsp for its version and status without a client — start it,
--- `initialize` (with the plugin's settings), `harness.status`, `shutdown`, `exit` — for
--- :checkhealth when no harness client is running. Synchronous, with a deadline.
local M = {}

local function frame(message)
  local body = vim.json.encode(message)
  return ('Content-Length: %d\r\n\r\n%s'):format(#body, body)
end

--- Messages complete in `buffer`, and what is left of it.
local function parse(buffer)
  local messages = {}
  while true do
    local head_end = buffer:find('\r\n\r\n', 1, true)
    if not head_end then
      break
    end
    local length = tonumber(buffer:sub(1, head_end):match('Content%-Length: *(%d+)'))
    if not length or #buffer < head_end + 3 + length then
      break
    end
    local body = buffer:sub(head_end + 4, head_end + 3 + length)
    buffer = buffer:sub(head_end + 4 + length)
    local ok, decoded = pcall(vim.json.decode, body, { luanil = { object = true } })
    if ok then
      messages[#messages + 1] = decoded
    end
  end
  return messages, buffer
end

--- A started server and the JSON-RPC conversation with it.
--- @param argv string[]
--- @param root string
--- @param timeout_ms integer
--- @return table? conn { send, ask, notify, close, warnings, stderr }
--- @return string? err
local function connect(argv, root, timeout_ms)
  local conn = { answers = {}, warnings = {}, stderr = {}, next_id = 0 }
  local buffer = ''
  local ok, proc = pcall(vim.system, argv, {
    cwd = root,
    stdin = true,
    stdout = function(_, data)
      local messages
      messages, buffer = parse(buffer .. (data or ''))
      for _, m in ipairs(messages) do
        if m.id and not m.method then -- a response (`result: null` decodes to nil)
          conn.answers[m.id] = m
        elseif m.method == 'window/showMessage' and m.params then
          conn.warnings[#conn.warnings + 1] = m.params.message
        end
      end
    end,
    stderr = function(_, data)
      conn.stderr[#conn.stderr + 1] = data
    end,
  })
  if not ok then
    return nil, tostring(proc)
  end
  function conn.notify(method, params)
    pcall(proc.write, proc, frame({ jsonrpc = '2.0', method = method, params = params }))
  end
  --- Send a request and wait for its answer (nil: none in time).
  function conn.ask(method, params)
    conn.next_id = conn.next_id + 1
    local id = conn.next_id
    pcall(proc.write, proc, frame({ jsonrpc = '2.0', id = id, method = method, params = params }))
    vim.wait(timeout_ms, function()
      return conn.answers[id] ~= nil or proc:is_closing()
    end, 20)
    return conn.answers[id]
  end
  function conn.close()
    pcall(proc.write, proc, nil)
    vim.wait(2000, function()
      return proc:is_closing()
    end, 20)
    pcall(proc.kill, proc, 15)
  end
  return conn
end

--- Start `argv` in `root` and ask it. Returns { name, version, status, error, warnings },
--- or nil and what went wrong.
--- @param argv string[]
--- @param root string
--- @param settings table
--- @param timeout_ms integer?
--- @return table?
--- @return string?
function M.ask(argv, root, settings, timeout_ms)
  local conn, err = connect(argv, root, timeout_ms or 10000)
  if not conn then
    return nil, err
  end
  local init = conn.ask('initialize', {
    processId = vim.uv.os_getpid(),
    rootUri = vim.uri_from_fname(root),
    capabilities = vim.empty_dict(),
    initializationOptions = settings,
  })
  local result
  if init and init.result then
    conn.notify('initialized', vim.empty_dict())
    local status = conn.ask('workspace/executeCommand', {
      command = 'harness.status',
      arguments = { { workspaceFolder = root } },
    })
    local info = init.result.serverInfo or {}
    result = {
      name = info.name,
      version = info.version,
      status = status and status.result,
      error = status and status.error and status.error.message,
      warnings = conn.warnings,
    }
    conn.ask('shutdown', vim.NIL)
    conn.notify('exit', vim.NIL)
  end
  conn.close()
  if result then
    return result
  end
  local text = vim.trim(table.concat(conn.stderr, ''))
  return nil, text ~= '' and text:sub(-500) or 'no answer to initialize'
end

return M
