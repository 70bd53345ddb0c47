--- harness.rpc: the harness client for the current buffer and the one way commands are
--- sent — `workspace/executeCommand` with exactly one JSON *object* argument (a Lua `{}`
--- encodes as an array, so empty arguments go as vim.empty_dict()). Errors are shown with
--- the server's message; a command never ends in a Lua error.
local notify = require('harness.notify')

local M = {}

--- Names of the server's surface a later part of the plugin draws (SPEC §7, §11): the
--- events of a run as they happen, and the command that reads them back.
M.RUN_EVENT = 'harness/runEvent'
M.RUN_EVENTS = 'harness.run.events'

local WAIT_FOR_INIT_MS = 15000

local function under(path, dir)
  return dir and (path == dir or path:sub(1, #dir + 1) == dir .. '/')
end

--- Whether two paths name the same folder (symlinks resolved).
--- @param a string?
--- @param b string?
--- @return boolean
function M.same_path(a, b)
  if type(a) ~= 'string' or type(b) ~= 'string' then
    return false
  end
  return (vim.uv.fs_realpath(a) or a) == (vim.uv.fs_realpath(b) or b)
end

--- The harness client serving `bufnr` (default: the current buffer), else the one whose
--- root holds the current directory, else the only one. Uninitialized clients count.
--- @param bufnr integer?
--- @return vim.lsp.Client?
--- @return string? why there is none
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local opts = { name = 'harness', _uninitialized = true }
  local mine = vim.lsp.get_clients(vim.tbl_extend('force', opts, { bufnr = bufnr }))
  if mine[1] then
    return mine[1]
  end
  local all = vim.lsp.get_clients(opts)
  local cwd = vim.fs.normalize(vim.fn.getcwd())
  for _, client in ipairs(all) do
    if under(cwd, client.root_dir) then
      return client
    end
  end
  if #all == 1 then
    return all[1]
  end
  if #all > 1 then
    return nil, 'several workspaces are open: run this from a buffer of the one you mean'
  end
  return nil,
    'no harness-lsp serves this buffer: open a file of your project (see :checkhealth harness)'
end

--- Run `fn(client)` once the client is initialized (a command typed right after opening a
--- file waits for the server instead of failing).
--- @param fn fun(client: vim.lsp.Client)
--- @param bufnr integer?
function M.with_client(fn, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client, why = M.client(bufnr)
  -- A buffer just opened gets its client a moment later (root_dir runs first).
  local root = not client and require('harness.attach').root(bufnr)
  local coming = root and require('harness.server').find(root) ~= nil
  if not client and not coming then
    notify.error(why)
    return
  end
  local waited = 0
  local function retry()
    client = client or M.client(bufnr)
    if client and client:is_stopped() then
      notify.error('harness-lsp stopped before it was ready (see :checkhealth harness)')
    elseif client and client.initialized then
      fn(client)
    elseif waited >= WAIT_FOR_INIT_MS then
      notify.error(client and 'harness-lsp did not answer initialize in time' or why)
    else
      waited = waited + 50
      vim.defer_fn(retry, 50)
    end
  end
  retry()
end

--- A JSON object for the wire: `{}` and nil become an empty object.
--- @param args table?
--- @return table
function M.object(args)
  if args == nil or next(args) == nil then
    return vim.empty_dict()
  end
  return args
end

--- The error text to show for a failed command.
--- @param err table|string
--- @return string
function M.error_text(err)
  local message = type(err) == 'table' and tostring(err.message or vim.inspect(err))
    or tostring(err)
  return notify.own_words(message, type(err) == 'table' and err.data or nil)
end

--- Send `command` with one object argument through `client`; `on_result(result)` on
--- success, the server's message shown on failure (and `on_error(err)` called if given).
--- @param client vim.lsp.Client
--- @param command string
--- @param args table?
--- @param on_result fun(result: any)?
--- @param on_error fun(err: table)?
function M.request(client, command, args, on_result, on_error)
  local provider = (client.server_capabilities or {}).executeCommandProvider
  local offered = type(provider) == 'table' and provider.commands
  if type(offered) == 'table' and not vim.list_contains(offered, command) then
    local version = client.server_info and client.server_info.version or '?'
    notify.error(('harness-lsp %s has no command %s: update the server'):format(version, command))
    if on_error then
      on_error({ code = -32601, message = command .. ' is not offered by the server' })
    end
    return
  end
  local params = { command = command, arguments = { M.object(args) } }
  local ok = client:request('workspace/executeCommand', params, function(err, result)
    if err then
      notify.long(M.error_text(err), vim.log.levels.ERROR)
      if on_error then
        on_error(err)
      end
    elseif on_result then
      on_result(result)
    end
  end) -- no bufnr: every buffer's pending didChange is flushed first (dirty files known)
  if not ok then
    notify.error(command .. ': harness-lsp is not running (see :checkhealth harness)')
  end
end

--- `M.request` through the current buffer's client.
--- @param command string
--- @param args table?|fun(client: vim.lsp.Client): table?
--- @param on_result fun(result: any, client: vim.lsp.Client)?
function M.exec(command, args, on_result)
  M.with_client(function(client)
    local a = type(args) == 'function' and args(client) or args
    M.request(client, command, a --[[@as table?]], function(result)
      if on_result then
        on_result(result, client)
      end
    end)
  end)
end

return M
