-- The user config of the end-to-end tests: the plugin on the runtimepath (as lazy.nvim or
-- vim.pack put it) and require('harness').setup($HARNESS_SETUP). What is recorded here is
-- only what a user sees: messages (vim.notify), progress events and statusline changes.
vim.opt.runtimepath:prepend(vim.env.HARNESS_PLUGIN)
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'I'

_G.seen = { notes = {}, progress = {}, status = {} }

local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(_G.seen.notes, { msg = tostring(msg), level = level })
  return notify(msg, level, opts)
end

vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(args)
    local value = args.data.params.value
    table.insert(_G.seen.progress, {
      kind = value.kind,
      message = value.message or value.title,
      status = vim.lsp.status(),
    })
  end,
})

vim.api.nvim_create_autocmd('User', {
  pattern = 'HarnessStatus',
  callback = function(args)
    table.insert(_G.seen.status, {
      kind = args.data.kind,
      params = args.data.params,
      line = require('harness').statusline(),
    })
  end,
})

local setup = vim.json.decode(vim.env.HARNESS_SETUP or '{}')
if setup == 'enable-only' then -- the plugin installed, and only this line in the config
  vim.lsp.enable('harness')
else
  require('harness').setup(setup)
end
