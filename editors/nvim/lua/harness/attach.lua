--- harness.attach: which buffers the client serves — every file buffer under a workspace
--- root, whatever its filetype (a pyproject.toml is `toml`; a file with no filetype at all
--- gets no FileType event, so it is started from BufReadPost/BufNewFile here).
local config = require('harness.config')
local server = require('harness.server')

local M = {}

local function is_under(path, dir)
  dir = dir:gsub('/+$', '')
  return path == dir or path:sub(1, #dir + 1) == dir .. '/'
end

--- The workspace root of a buffer, or nil when the plugin should leave it alone.
--- @param bufnr integer
--- @return string?
function M.root(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then -- unnamed, or fugitive://, oil://…
    return nil
  end
  local path = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
  for _, marker in ipairs(config.options.root_markers) do
    local root = vim.fs.root(path, marker)
    if root then
      return root
    end
  end
  local cwd = vim.fs.normalize(vim.fn.getcwd())
  if cwd ~= '/' and is_under(path, cwd) then
    return cwd
  end
  return nil
end

--- `root_dir` of the LSP config: a root with a server, or no client at all (and the user
--- told once how to install the server).
--- @param bufnr integer
--- @param on_dir fun(root: string)
function M.root_dir(bufnr, on_dir)
  local root = M.root(bufnr)
  if not root then
    return
  end
  local argv, why = server.find(root)
  if not argv then
    server.report_missing(root, why)
    return
  end
  on_dir(root)
end

local function enabled()
  if vim.lsp.is_enabled then
    return vim.lsp.is_enabled('harness')
  end
  return vim.lsp._enabled_configs ~= nil and vim.lsp._enabled_configs.harness ~= nil
end

--- Start (or reuse) the client for a buffer that has no filetype, when harness is enabled.
--- @param bufnr integer
function M.start_without_filetype(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].filetype ~= '' or not enabled() then
    return
  end
  if #vim.lsp.get_clients({ bufnr = bufnr, name = 'harness', _uninitialized = true }) > 0 then
    return
  end
  M.root_dir(bufnr, function(root)
    M.start(bufnr, root)
  end)
end

--- Start (or reuse) the client of `root` for a buffer.
--- @param bufnr integer
--- @param root string
function M.start(bufnr, root)
  local lsp_config = vim.deepcopy(vim.lsp.config.harness)
  lsp_config.root_dir = root
  vim.lsp.start(lsp_config, { bufnr = bufnr })
end

--- Stop `client` and start its workspace's server again for the buffers it served, when
--- the program found for it changed (after :HarnessTrust[!]).
--- @param client vim.lsp.Client
--- @return string? program the one started now (nil: nothing changed)
function M.relaunch(client)
  local root = client.root_dir
  local program = root and server.changed(root)
  if not program then
    return nil
  end
  server.forget(root)
  local bufs = vim.lsp.get_buffers_by_client_id(client.id)
  client:stop()
  local waited = 0
  local function again()
    if not client:is_stopped() and waited < 5000 then
      waited = waited + 50
      vim.defer_fn(again, 50)
      return
    end
    for _, buf in ipairs(bufs) do
      if vim.api.nvim_buf_is_valid(buf) then
        M.root_dir(buf, function(r)
          M.start(buf, r)
        end)
      end
    end
  end
  vim.defer_fn(again, 50)
  return program
end

return M
