--- harness.complete: completion on the conversation's prompt line (`omnifunc` and
--- `completefunc` of the buffer, so <C-x><C-o>, nvim-cmp's omni source and blink.cmp's
--- pick it up): `@` the workspace's files and the symbols your other language servers know
--- (workspace/symbol), `/` at the start the prompts of harness.prompts. A sent `@file`
--- attaches that file to the turn (harness.run's `context`).
local M = {}

local MAX_FILES, MAX_DEPTH, MAX_SEEN = 200, 8, 20000 -- MAX_SEEN: a huge tree stays quick
local SKIP = { ['.git'] = true, node_modules = true, ['.venv'] = true, __pycache__ = true }

local function client()
  local c = require('harness.conversation').current()
  local cl = c.client_id and vim.lsp.get_client_by_id(c.client_id)
  return cl or require('harness.rpc').client() or vim.lsp.get_clients({ name = 'harness' })[1]
end

local function root()
  local cl = client()
  return cl and cl.root_dir or vim.fn.getcwd()
end

--- The workspace's files whose path contains `base` (workspace-relative paths).
--- @param base string
--- @return string[]
function M.files(base)
  local out, seen = {}, 0
  local low = base:lower()
  for name, kind in
    vim.fs.dir(root(), {
      depth = MAX_DEPTH,
      skip = function(dir)
        return not SKIP[vim.fs.basename(dir)]
      end,
    })
  do
    seen = seen + 1
    if seen > MAX_SEEN then
      break
    end
    if kind == 'file' and name:lower():find(low, 1, true) then
      out[#out + 1] = name
      if #out >= MAX_FILES then
        break
      end
    end
  end
  table.sort(out, function(a, b)
    return #a < #b or (#a == #b and a < b)
  end)
  return out
end

--- Symbols named like `base` from the other language servers (at most 1 s).
--- @param base string
--- @return table[] complete-items
function M.symbols(base)
  if base == '' then
    return {}
  end
  local items = {}
  for _, cl in ipairs(vim.lsp.get_clients()) do
    if cl.name ~= 'harness' and cl:supports_method('workspace/symbol') then
      local answer = cl:request_sync('workspace/symbol', { query = base }, 1000)
      for _, sym in ipairs(answer and answer.result or {}) do
        local path = sym.location and sym.location.uri and vim.uri_to_fname(sym.location.uri)
        items[#items + 1] = {
          word = '@' .. sym.name,
          menu = path and vim.fn.fnamemodify(path, ':~:.') or cl.name,
          kind = vim.lsp.protocol.SymbolKind[sym.kind] or 'symbol',
        }
      end
    end
  end
  return items
end

--- The prompts of harness.prompts (their names start with `base`).
--- @param base string
--- @return table[] complete-items
function M.prompts(base)
  local cl = client()
  if not cl then
    return {}
  end
  local args = cl.root_dir and { workspaceFolder = cl.root_dir } or vim.empty_dict()
  local params = { command = 'harness.prompts', arguments = { args } }
  local answer = cl:request_sync('workspace/executeCommand', params, 2000)
  local items = {}
  for _, p in ipairs(answer and answer.result or {}) do
    if type(p.name) == 'string' and p.name:sub(1, #base) == base and p.error == nil then
      local hint = p.argumentHint ~= vim.NIL and p.argumentHint or ''
      items[#items + 1] = {
        word = '/' .. p.name,
        menu = ('%s %s'):format(tostring(p.source), tostring(hint)),
        info = p.description ~= vim.NIL and tostring(p.description) or '',
      }
    end
  end
  return items
end

--- Where the word being completed starts on the prompt line, and its kind ('@' or '/').
local function start_of(line, col)
  local before = line:sub(1, col)
  local at = before:match('.*()@[^%s@]*$')
  if at then
    return at - 1, '@'
  end
  local slash = before:match('^> ()/%S*$')
  if slash then
    return slash - 1, '/'
  end
  return nil
end

--- The omnifunc (`:help complete-functions`).
function M.omnifunc(findstart, base)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  if row ~= vim.api.nvim_buf_line_count(0) then
    return findstart == 1 and -3 or {}
  end
  local line = vim.api.nvim_get_current_line()
  if findstart == 1 then
    local start = start_of(line, col)
    return start or -3
  end
  local kind, word = base:sub(1, 1), base:sub(2)
  if kind == '/' then
    return M.prompts(word)
  elseif kind ~= '@' then
    return {}
  end
  local items = {}
  for _, f in ipairs(M.files(word)) do
    items[#items + 1] = { word = '@' .. f, menu = 'file' }
  end
  vim.list_extend(items, M.symbols(word))
  return items
end

--- The files `@path` names in `line` (those that exist), as harness.run's context.
--- @param line string
--- @return table[]?
function M.context(line)
  local out = {}
  for path in line:gmatch('@(%S+)') do
    local full = vim.fs.joinpath(root(), path)
    if vim.fn.filereadable(full) == 1 then
      out[#out + 1] = { uri = vim.uri_from_fname(full) }
    end
  end
  return out[1] and out or nil
end

return M
