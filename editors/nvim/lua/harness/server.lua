--- harness.server: finding the harness-lsp executable for a workspace (SPEC §10) and
--- starting it: your `cmd` setting, else <root>/.venv/bin/harness-lsp, else harness-lsp on
--- $PATH. When none is found the user is told how to install it, once per workspace.
local config = require('harness.config')
local notify = require('harness.notify')

local M = {}

local told = {} ---@type table<string, true>

--- The server argv for a workspace root, and how it was found; nil and why not.
--- @param root string?
--- @return string[]? argv
--- @return string how_or_why
function M.find(root)
  local cmd = config.options.cmd
  if cmd then
    local argv = type(cmd) == 'string' and { cmd } or vim.deepcopy(cmd)
    local exe = argv[1] and vim.fn.exepath(vim.fn.expand(argv[1])) or ''
    if exe == '' then
      return nil, ('your `cmd` setting (%s) is not an executable'):format(tostring(argv[1]))
    end
    argv[1] = exe
    return argv, 'your `cmd` setting'
  end
  if root then
    local venv = vim.fs.joinpath(root, '.venv', 'bin', 'harness-lsp')
    if vim.fn.executable(venv) == 1 then
      return { venv }, "the workspace's .venv"
    end
  end
  local on_path = vim.fn.exepath('harness-lsp')
  if on_path ~= '' then
    return { on_path }, '$PATH'
  end
  return nil,
    ('harness-lsp was not found (looked at: your `cmd` setting, %s, $PATH)'):format(
      root and vim.fs.joinpath(root, '.venv/bin/harness-lsp') or '<workspace>/.venv/bin/harness-lsp'
    )
end

M.install_hint = table.concat({
  'Install it into the workspace (python3 -m venv .venv && .venv/bin/pip install <harness-lsp>)',
  'or for your user (pipx install <harness-lsp>), where <harness-lsp> is a clone of the',
  "harness-lsp repository; or set require('harness').setup({ cmd = '/path/to/harness-lsp' }).",
}, ' ')

--- Tell the user (once per root) that no server could be found.
--- @param root string
--- @param why string
function M.report_missing(root, why)
  if told[root] then
    return
  end
  told[root] = true
  -- Scheduled: not part of the :edit (or FileType autocommand) that found it out.
  vim.schedule(function()
    notify.error(('%s. %s'):format(why, M.install_hint))
  end)
end

--- `cmd` of the LSP config: start the server found for the client's root.
--- @param dispatchers vim.lsp.rpc.Dispatchers
--- @param lsp_config vim.lsp.ClientConfig?
function M.start(dispatchers, lsp_config)
  local root = lsp_config and lsp_config.root_dir or vim.fn.getcwd()
  local argv, why = M.find(root)
  if not argv then
    -- root_dir() checks first, so this only happens when the server vanished meanwhile.
    M.report_missing(root, why)
    error('harness: ' .. why, 0)
  end
  return vim.lsp.rpc.start(argv, dispatchers, { cwd = root })
end

return M
