-- What the tests record of a Neovim session: only what a user sees — messages (vim.notify),
-- progress events with vim.lsp.status() at the time, and each statusline change.
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
