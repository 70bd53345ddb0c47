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

--- Start `argv` in `root` and ask it. Returns { version, name, status, warnings } or nil
--- and an error message.
--- @param argv string[]
--- @param root string
--- @param settings table
--- @param timeout_ms integer?
--- @return table?
--- @return string?
function M.ask(argv, root, settings, timeout_ms)
  local buffer, stderr = '', {}
  local answers, warnings = {}, {}
  local ok, proc = pcall(vim.system, argv, {
    cwd = root,
    stdin = true,
    stdout = function(_, data)
      if not data then
        return
      end
      local messages
      messages, buffer = parse(buffer .. data)
      for _, m in ipairs(messages) do
        if m.id and not m.method then -- a response (`result: null` decodes to nil)
          answers[m.id] = m
        elseif m.method == 'window/showMessage' and m.params then
          warnings[#warnings + 1] = m.params.message
        end
      end
    end,
    stderr = function(_, data)
      stderr[#stderr + 1] = data
    end,
  })
  if not ok then
    return nil, tostring(proc)
  end
  local function send(message)
    pcall(proc.write, proc, frame(message))
  end
  local function wait(id)
    vim.wait(timeout_ms or 10000, function()
      return answers[id] ~= nil or proc:is_closing()
    end, 20)
    return answers[id]
  end
  send({
    jsonrpc = '2.0',
    id = 1,
    method = 'initialize',
    params = {
      processId = vim.uv.os_getpid(),
      rootUri = vim.uri_from_fname(root),
      capabilities = vim.empty_dict(),
      initializationOptions = settings,
    },
  })
  local init = wait(1)
  local result
  if init and init.result then
    send({ jsonrpc = '2.0', method = 'initialized', params = vim.empty_dict() })
    local arguments = { { workspaceFolder = root } }
    send({
      jsonrpc = '2.0',
      id = 2,
      method = 'workspace/executeCommand',
      params = { command = 'harness.status', arguments = arguments },
    })
    local status = wait(2)
    local info = init.result.serverInfo or {}
    result = {
      name = info.name,
      version = info.version,
      status = status and status.result,
      error = status and status.error and status.error.message,
      warnings = warnings,
    }
    send({ jsonrpc = '2.0', id = 3, method = 'shutdown' })
    wait(3)
    send({ jsonrpc = '2.0', method = 'exit' })
  end
  pcall(proc.write, proc, nil)
  if not proc:is_closing() then
    vim.wait(2000, function()
      return proc:is_closing()
    end, 20)
  end
  pcall(proc.kill, proc, 15)
  if result then
    return result
  end
  local err = vim.trim(table.concat(stderr, ''))
  return nil, err ~= '' and err:sub(-500) or 'no answer to initialize'
end

return M
