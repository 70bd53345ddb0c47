-- Runs the README's Neovim configuration (extracted by the test into $HARNESS_README_LUA)
-- in headless Neovim, then :HarnessRun, and prints one JSON line for the test to check.
local out = { budget = {}, progress = {} }
local function finish(code)
  io.stdout:write(vim.json.encode(out) .. '\n')
  io.stdout:flush()
  vim.cmd(code == 0 and 'qall!' or ('cquit! ' .. code))
end
vim.defer_fn(function() out.error = 'timeout'; finish(2) end, 40000)

dofile(vim.env.HARNESS_README_LUA)  -- the README block, verbatim

-- Observe what the README's handlers produce, and the end of the run.
local readme_budget = vim.lsp.config.harness.handlers['harness/budget']
vim.lsp.config('harness', {
  handlers = {
    ['harness/budget'] = function(err, b, ctx)
      table.insert(out.budget, b)
      readme_budget(err, b, ctx)
      out.statusline = vim.api.nvim_eval_statusline('%{g:harness_status}', {}).str
    end,
    ['harness/runFinished'] = function(_, r) out.finished = r end,
    ['harness/didWrite'] = function(_, r) out.didWrite = r.uri end,
  },
})
vim.api.nvim_create_autocmd('LspProgress', { callback = function(a)
  local v = a.data.params.value
  table.insert(out.progress, v.kind .. (v.message and (':' .. v.message) or ''))
end })

vim.api.nvim_create_autocmd('LspAttach', { once = true, callback = function()
  vim.cmd('HarnessRun Fix the add function')
  local ok = vim.wait(30000, function() return out.finished ~= nil end, 20)
  if not ok then out.error = 'run did not finish'; return finish(1) end
  finish(0)
end })

vim.api.nvim_create_autocmd('VimEnter', { once = true, nested = true, callback = function()
  vim.cmd.edit(vim.env.HARNESS_FILE)
end })
