--- harness.config: the documented defaults table and the options in effect.
---
--- `require('harness').setup(opts)` merges `opts` over `defaults` (lists are replaced,
--- not merged index by index). Everything else reads `require('harness.config').options`.
local M = {}

--- The defaults (`:help harness-options` documents each one).
M.defaults = {
  -- The server: a path or an argv list. nil: the workspace's .venv/bin/harness-lsp when you
  -- trust it, else harness-lsp on $PATH (SPEC §10). Only from your own config: setup().
  cmd = nil,
  -- A buffer's workspace is the nearest folder holding the first of these (in this order);
  -- a file under the current directory with none of them belongs to the current directory.
  -- `.git` comes first: a dependency folder inside a repository (node_modules/dep,
  -- vendor/x) with a `.harness` of its own is part of the repository, not a workspace.
  root_markers = { '.git', '.harness', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' },
  -- Server settings (SPEC §7, camelCase), sent as init_options and settings.harness:
  -- provider = { name, model, baseUrl, apiKeyEnv }, storePath, tokenBudget, maxSteps,
  -- contextBudget = { maxTokens, share, lowWater }, contextWire, policy, trusted.
  settings = {},
  -- setup() calls vim.lsp.enable('harness').
  enable = true,
  -- true: add require('harness').statusline() to the statusline (see harness-statusline).
  statusline = false,
  -- false: no mappings. true: the suggested ones below. A table: { action = lhs } (an lhs of
  -- false leaves that action unmapped).
  keymaps = false,
  -- Window borders of the memory and approval floats.
  border = 'rounded',
  -- Where :Harness shows the conversation: 'vertical' | 'horizontal' | 'float' | 'tab'.
  -- nil: a vertical split when the code window keeps 80 columns beside it, else horizontal.
  layout = nil,
  -- The conversation's width (vertical, float) and height (horizontal, float): columns or
  -- lines, or a fraction of the screen (0.4). nil: what fits (see harness-layout).
  width = nil,
  height = nil,
  -- Keys of the conversation buffer that answer the approval waiting, from any line of it
  -- (false: not mapped). On the approval's own lines `a` `A` `d` answer too.
  approve_keys = { allow = '<leader>a', allow_run = '<leader>A', deny = '<leader>d' },
  -- Keys of a code buffer with hunks to review (harness-review; false: not mapped).
  hunk_keys = { next = ']h', prev = '[h', undo = '<leader>hu', keep = '<leader>hk' },
}

--- The mappings `keymaps = true` sets (normal mode).
M.suggested_keymaps = {
  run = '<leader>hr',
  cancel = '<leader>hc',
  memory = '<leader>hm',
  trace = '<leader>ht',
  approve = '<leader>ha',
}

M.options = vim.deepcopy(M.defaults)

local LAYOUTS = { vertical = true, horizontal = true, float = true, tab = true }

local function merge(base, over)
  if type(base) ~= 'table' or type(over) ~= 'table' or vim.islist(over) or vim.islist(base) then
    return vim.deepcopy(over)
  end
  local out = vim.deepcopy(base)
  for k, v in pairs(over) do
    out[k] = merge(base[k], v)
  end
  return out
end

--- Options in effect after merging `opts` over the defaults.
--- @param opts table?
--- @return table
function M.set(opts)
  vim.validate('opts', opts, 'table', true)
  local options = merge(M.defaults, opts or {})
  vim.validate('cmd', options.cmd, { 'string', 'table' }, true)
  vim.validate('root_markers', options.root_markers, 'table')
  vim.validate('settings', options.settings, 'table')
  vim.validate('keymaps', options.keymaps, { 'boolean', 'table' })
  vim.validate('layout', options.layout, function(v)
    return v == nil or LAYOUTS[v] == true
  end, "'vertical', 'horizontal', 'float' or 'tab'")
  vim.validate('width', options.width, 'number', true)
  vim.validate('height', options.height, 'number', true)
  vim.validate('approve_keys', options.approve_keys, { 'table', 'boolean' }, true)
  vim.validate('hunk_keys', options.hunk_keys, { 'table', 'boolean' }, true)
  M.options = options
  return options
end

--- The settings as the server reads them: an empty table is sent as a JSON object.
--- @return table
function M.server_settings()
  local settings = vim.deepcopy(M.options.settings or {})
  return next(settings) and settings or vim.empty_dict()
end

return M
