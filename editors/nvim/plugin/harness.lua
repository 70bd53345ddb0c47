-- harness: user commands and the autocommands that keep the status current. Nothing here
-- starts a server: vim.lsp.enable('harness') (or require('harness').setup()) does.
if vim.g.loaded_harness then
  return
end
vim.g.loaded_harness = true

local function harness()
  return require('harness')
end

local command = vim.api.nvim_create_user_command

command('HarnessRun', function(o)
  harness().run(o.args, o.range > 0 and { line1 = o.line1, line2 = o.line2 } or nil)
end, {
  nargs = '*',
  range = true,
  desc = 'harness: run a task (asks for the goal when none is given; a range is attached)',
})
command('Harness', function(o)
  harness().conversation(o.args)
end, {
  nargs = '*',
  complete = function(lead, line)
    if line:match('^%s*Harness%s+%S+%s') then
      return {}
    end
    return vim.tbl_filter(function(w)
      return w:sub(1, #lead) == lead
    end, { 'history', 'new', 'plan' })
  end,
  desc = 'harness: toggle the conversation (history, new, plan {goal})',
})
command('HarnessAsk', function(o)
  harness().ask(o.args)
end, { nargs = '+', desc = 'harness: say something in the conversation (a follow-up)' })
command('HarnessChanges', function(o)
  harness().changes(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'harness: the files the conversation changed, in the quickfix list' })
command('HarnessHunk', function(o)
  require('harness.review').command(o.args)
end, {
  nargs = 1,
  complete = function()
    return { 'keep', 'undo', 'next', 'prev' }
  end,
  desc = 'harness: keep or undo the hunk under the cursor (next, prev: move)',
})
command('HarnessCancel', function()
  harness().cancel()
end, { nargs = 0, desc = 'harness: cancel the run in progress' })
command('HarnessMemory', function()
  harness().memory()
end, { nargs = 0, desc = "harness: the agent's notes (d delete, p pin, a add, q close)" })
command('HarnessMemoryClear', function(o)
  harness().memory_clear(o.args)
end, {
  nargs = '?',
  complete = function()
    return { 'workspace', 'global' }
  end,
  desc = 'harness: delete every note (asks first)',
})
command('HarnessTrace', function(o)
  harness().trace(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'harness: runs, steps, the full prompt of a step' })
command('HarnessRevert', function(o)
  harness().revert(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'harness: restore what a run wrote' })
command('HarnessTrust', function(o)
  harness().trust(o.bang)
end, { nargs = 0, bang = true, desc = 'harness: trust this workspace (! : stop trusting it)' })
command('HarnessApprove', function(o)
  harness().approve(o.args)
end, {
  nargs = '?',
  complete = function()
    return { 'allow', 'run', 'deny' }
  end,
  desc = 'harness: answer the approval waiting (allow, run, deny; nothing: show it)',
})

-- :help harness right after installing (vim.pack, a plugin manager or a clone on the
-- runtimepath): the help tags are generated when missing or older than the help file.
do
  local here = debug.getinfo(1, 'S').source:sub(2)
  local doc = vim.fs.joinpath(vim.fs.dirname(vim.fs.dirname(here)), 'doc')
  local help = vim.uv.fs_stat(vim.fs.joinpath(doc, 'harness.txt'))
  local tags = vim.uv.fs_stat(vim.fs.joinpath(doc, 'tags'))
  if help and (not tags or tags.mtime.sec < help.mtime.sec) and vim.uv.fs_access(doc, 'W') then
    pcall(vim.cmd.helptags, vim.fn.fnameescape(doc))
  end
end

local group = vim.api.nvim_create_augroup('harness', { clear = true })

-- A file with no filetype gets no FileType event, so vim.lsp.enable() never sees it.
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  group = group,
  callback = function(args)
    vim.schedule(function()
      require('harness.attach').start_without_filetype(args.buf)
    end)
  end,
})

vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == 'harness' then
      local state = require('harness.state')
      state.remember(args.buf, client.id)
      if not state.get(client.id).attached then
        state.get(client.id).attached = true
        require('harness.events').refresh(client.id)
      end
    end
  end,
})

vim.api.nvim_create_autocmd('LspDetach', {
  group = group,
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == 'harness' and client:is_stopped() then
      require('harness.approval').drop(function(item)
        return item.client_id == client.id
      end)
      require('harness.state').forget(client.id)
    end
  end,
})

vim.api.nvim_create_autocmd('VimResized', {
  group = group,
  callback = function()
    if package.loaded['harness.approval'] then
      require('harness.approval').resize()
    end
  end,
})
