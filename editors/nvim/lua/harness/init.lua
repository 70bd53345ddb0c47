--- harness: the Neovim client of harness-lsp (SPEC §10). `:help harness`.
---
---   require('harness').setup({ settings = { provider = { name = 'anthropic' } } })
---   vim.o.statusline = "%f %{v:lua.require'harness'.statusline()}"
---
--- The plugin is thin: every behaviour is a server command or notification (SPEC §7);
--- this formats and shows them. Modules load when first used.
local M = {}

--- Merge `opts` over the defaults (`:help harness-options`), configure the `harness` LSP
--- client with them and enable it.
--- @param opts table?
function M.setup(opts)
  local config = require('harness.config')
  local options = config.set(opts)
  local settings = config.server_settings()
  vim.lsp.config('harness', {
    init_options = settings,
    settings = { harness = settings },
  })
  if options.enable then
    vim.lsp.enable('harness')
  end
  if options.statusline then
    require('harness.statusline').install()
  end
  M.set_keymaps(options.keymaps)
end

--- The mappings of `opts.keymaps` (false: none; true: the suggested ones).
--- @param keymaps boolean|table
function M.set_keymaps(keymaps)
  if not keymaps then
    return
  end
  local suggested = require('harness.config').suggested_keymaps
  local maps = keymaps == true and suggested or vim.tbl_extend('force', {}, keymaps)
  local actions = {
    run = { M.run, 'run a task' },
    cancel = { M.cancel, 'cancel the run' },
    memory = { M.memory, 'memory' },
    trace = { M.trace, 'trace' },
    approve = { M.approve, 'answer the pending approval' },
  }
  for name, lhs in pairs(maps) do
    local action = actions[name]
    if action and lhs then
      vim.keymap.set('n', lhs, function()
        action[1]()
      end, { desc = 'harness: ' .. action[2] })
    end
  end
end

--- A short status for any statusline: spent/budget · request/ceiling · step, the outcome
--- after a run, the notes count when idle, '' in a buffer no harness client serves.
--- @return string
function M.statusline()
  return require('harness.statusline').text()
end

--- :HarnessRun {goal} (`:'<,'>HarnessRun {goal}`: the lines are attached)
--- @param goal string?
--- @param range { line1: integer, line2: integer }?
function M.run(goal, range)
  require('harness.commands').run(goal, range)
end

--- :HarnessAsk {text}: a follow-up in the conversation shown.
--- @param text string
function M.ask(text)
  require('harness.commands').ask(text)
end

--- :Harness [history|new|plan {goal}]: toggle the conversation buffer; pick an earlier
--- conversation; start a new one; ask for a plan (a run that only reads).
--- @param what string?
function M.conversation(what)
  what = vim.trim(what or '')
  local word, rest = what:match('^(%S+)%s*(.*)$')
  if word == 'history' then
    require('harness.changes').history()
  elseif word == 'new' then
    require('harness.conversation').new()
    require('harness.convbuf').open(true)
  elseif word == 'plan' then
    require('harness.commands').plan(rest)
  elseif what == '' then
    require('harness.convbuf').toggle()
  else
    require('harness.notify').error(':Harness takes `history`, `new`, `plan {goal}` or nothing')
  end
end

--- :HarnessChanges [run]: the files changed, in the quickfix list.
--- @param run string?
function M.changes(run)
  require('harness.changes').open(run)
end

--- :HarnessCancel
function M.cancel()
  require('harness.commands').cancel()
end

--- :HarnessMemory
function M.memory()
  require('harness.memory').open()
end

--- :HarnessMemoryClear [global]
--- @param scope string?
function M.memory_clear(scope)
  require('harness.commands').memory_clear(scope)
end

--- :HarnessTrace [run]
--- @param run string|integer?
function M.trace(run)
  require('harness.trace').open(run and tostring(run) or nil)
end

--- :HarnessRevert [run]
--- @param run string|integer?
function M.revert(run)
  require('harness.commands').revert(run and tostring(run) or nil)
end

--- :HarnessTrust[!]
--- @param revoke boolean?
function M.trust(revoke)
  require('harness.commands').trust(revoke == true)
end

--- :HarnessApprove [allow|run|deny] — answer the approval waiting, or focus it.
--- @param word string?
function M.approve(word)
  require('harness.approval').command(word)
end

return M
