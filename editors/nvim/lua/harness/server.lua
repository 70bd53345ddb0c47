--- harness.server: finding the harness-lsp executable for a workspace (SPEC §10) and
--- starting it: your `cmd` setting, else <root>/.venv/bin/harness-lsp when you trust it
--- (harness.trust), else harness-lsp on $PATH. A program inside the workspace comes with
--- the repository: untrusted, it is never run, and you are told why in one line. When
--- none is found the user is told how to install it, once per workspace.
local config = require('harness.config')
local notify = require('harness.notify')
local trust = require('harness.trust')

local M = {}

local told = {} ---@type table<string, true>
local running = {} ---@type table<string, string> root → the program started for it
local skipped_told = {} ---@type table<string, true>

local function inside(path, root)
  local real = vim.uv.fs_realpath(path) or path
  local dir = (vim.uv.fs_realpath(root) or root):gsub('/+$', '')
  return real == dir or real:sub(1, #dir + 1) == dir .. '/'
end

local function shown(path)
  return vim.fn.fnamemodify(path, ':~:.')
end

--- A program in the workspace that was not run, and why (one line).
--- @param program string
--- @param why string
--- @return string
local function skipped(program, why)
  local reason = why == 'not trusted' and 'came with the repository' or why
  return ('%s not trusted (%s)'):format(shown(program), reason)
end

--- The first harness-lsp on $PATH that may run for `root`. $PATH may name folders of the
--- workspace too (`.`, node_modules/.bin): those programs follow the .venv's rule.
--- @param root string?
--- @return string? program
--- @return string? skipped
function M.on_path(root)
  local passed
  local sep = vim.fn.has('win32') == 1 and ';' or ':'
  for _, dir in ipairs(vim.split(vim.env.PATH or '', sep, { plain = true })) do
    local exe = vim.fn.exepath(vim.fs.joinpath(dir == '' and '.' or dir, 'harness-lsp'))
    if exe ~= '' then
      exe = vim.fn.fnamemodify(exe, ':p')
      if not (root and inside(exe, root)) then
        return exe, passed
      end
      local ok, why = trust.allows(exe, root)
      if ok then
        return exe, passed
      end
      passed = passed or skipped(exe, why --[[@as string]])
    end
  end
  return nil, passed
end

--- The server argv for a workspace root, and how it was found; nil and why not. The third
--- value says which program of the workspace was passed over, and why.
--- @param root string?
--- @return string[]? argv
--- @return string how_or_why
--- @return string? skipped
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
  local passed
  if root then
    local venv = vim.fs.joinpath(root, '.venv', 'bin', 'harness-lsp')
    if vim.fn.executable(venv) == 1 then
      local ok, why = trust.allows(venv, root)
      if ok then
        return { venv }, "the workspace's .venv (trusted)"
      end
      passed = skipped(venv, why --[[@as string]])
    end
  end
  local on_path, passed_on_path = M.on_path(root)
  passed = passed or passed_on_path
  if on_path then
    return { on_path }, '$PATH', passed
  end
  local looked = root and vim.fs.joinpath(root, '.venv/bin/harness-lsp')
    or '<workspace>/.venv/bin/harness-lsp'
  if passed then
    return nil,
      ('%s, and there is no harness-lsp on $PATH. `:view` it and `:trust` to run it'):format(passed)
  end
  return nil,
    ('harness-lsp was not found (looked at: your `cmd` setting, %s, $PATH)'):format(looked)
end

M.install_hint = table.concat({
  'Install it for your user (pipx install <harness-lsp>) or into the workspace (python3 -m venv',
  '.venv && .venv/bin/pip install <harness-lsp> && .venv/bin/harness trust .), where',
  '<harness-lsp> is a clone of the harness-lsp repository; or set',
  "require('harness').setup({ cmd = '/path/to/harness-lsp' }).",
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

--- Tell the user (once per root, in one line) that the workspace's own program was passed
--- over for $PATH's.
--- @param root string
--- @param passed string
function M.report_skipped(root, passed)
  if skipped_told[root] then
    return
  end
  skipped_told[root] = true
  vim.schedule(function()
    notify.warn(notify.one_line(passed .. ": using $PATH's; :HarnessTrust runs it"))
  end)
end

--- Forget what was said for `root` (after :HarnessTrust, say it again if still true).
--- @param root string
function M.forget(root)
  told[root], skipped_told[root] = nil, nil
end

--- Whether the server found for `root` now is another program than the one started for
--- it (trust given or taken back since).
--- @param root string
--- @return string? program the program to start now, shown short (nil: no change)
function M.changed(root)
  local argv = M.find(root)
  if running[root] == nil or (argv and argv[1]) == running[root] then
    return nil
  end
  return argv and shown(argv[1]) or 'none'
end

--- `cmd` of the LSP config: start the server found for the client's root.
--- @param dispatchers vim.lsp.rpc.Dispatchers
--- @param lsp_config vim.lsp.ClientConfig?
function M.start(dispatchers, lsp_config)
  local root = lsp_config and lsp_config.root_dir or vim.fn.getcwd()
  local argv, why, passed = M.find(root)
  if not argv then
    -- root_dir() checks first, so this only happens when the server vanished meanwhile.
    M.report_missing(root, why)
    error('harness: ' .. why, 0)
  end
  if passed then
    M.report_skipped(root, passed)
  end
  running[root] = argv[1]
  return vim.lsp.rpc.start(argv, dispatchers, { cwd = root })
end

return M
