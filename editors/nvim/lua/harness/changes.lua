--- harness.changes: `:HarnessChanges` — the files the conversation (or a run) changed, in
--- the quickfix list (harness.run.changes), each followed by its hunks to review. In that
--- list <CR> opens a diff of the file against its text before the agent touched it (the
--- before text in a scratch buffer, `:diffthis` on both), `X` puts the file back
--- (harness.run.revertFile; when someone changed it since, it asks before forcing), and
--- on a hunk `u` undoes it and `y` keeps it (harness.review). `:Harness history` picks an earlier
--- conversation of the workspace to draw (harness.conversations, harness.run.events).
local commands = require('harness.commands')
local conversation = require('harness.conversation')
local notify = require('harness.notify')
local rpc = require('harness.rpc')
local text = require('harness.text')

local M = {}

local TITLE = 'harness changes'
local shown = { files = {}, target = nil, client = nil } ---@type table

--- What the changes are of: `run` (a run id) or the conversation shown.
local function target(run)
  local id = tonumber(run or '')
  if id then
    return { runId = id }
  end
  local c = conversation.current()
  if c.id then
    return { conversationId = c.id }
  end
  return nil
end

local function client_for()
  local c = conversation.current()
  local client = c.client_id and vim.lsp.get_client_by_id(c.client_id)
  return client or rpc.client()
end

local function in_list()
  return vim.fn.getqflist({ title = 0 }).title == TITLE
end

local function hunk_text(h)
  local first = (h.after ~= vim.NIL and h.after or h.before or ''):match('[^\n]*') or ''
  local sign = (h.oldLines or 0) == 0 and '+' or (h.newLines or 0) == 0 and '-' or '~'
  return ('  %s hunk %s: %s'):format(sign, tostring(h.state), first)
end

local function fill(client, files, what)
  local root = client.root_dir or vim.fn.getcwd()
  shown = { files = {}, target = what, client = client }
  local items = {}
  for _, f in ipairs(files) do
    local name = vim.fs.joinpath(root, f.path)
    local review = tonumber(f.toReview) and (' · %d to review'):format(f.toReview) or ''
    items[#items + 1] = {
      filename = name,
      lnum = 1,
      text = text.plain(
        ('%s (runs %s)%s'):format(f.status, table.concat(f.runIds or {}, ', '), review)
      ),
    }
    shown.files[#items] = { file = f }
    for _, h in ipairs(f.hunks or {}) do
      items[#items + 1] = {
        filename = name,
        lnum = math.max(1, tonumber(h.newStart) or 1),
        text = text.plain(hunk_text(h)),
      }
      shown.files[#items] = { file = f, hunk = h, path = vim.fs.normalize(name) }
    end
  end
  vim.fn.setqflist({}, ' ', { title = TITLE, items = items })
  require('harness.review').set(client, what, files)
end

local function on_hunk(verb)
  return function(row)
    if not (row and row.hunk) then
      notify.info(('%s works on a hunk line of the list'):format(verb == 'undo' and 'u' or 'y'))
      return
    end
    local review = require('harness.review')
    local buf = vim.fn.bufnr(row.path)
    local again = function()
      M.open(shown.target.runId and tostring(shown.target.runId) or nil)
    end
    if verb == 'undo' then
      review.undo_hunk(row.hunk, row.path, buf > 0 and buf or nil, again)
    else
      review.keep_hunk(row.hunk, row.path, again)
    end
  end
end

local function set_keys(qf)
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, function()
      if not in_list() then
        return lhs == '<CR>' and vim.cmd('.cc') or nil
      end
      fn(shown.files[vim.fn.line('.')])
    end, { buffer = qf, nowait = true, desc = desc })
  end
  map('<CR>', function(row)
    M.diff(row and row.file)
  end, 'harness: diff against the text before the agent')
  map('X', function(row)
    M.revert_file(row and row.file)
  end, 'harness: put this file back as it was')
  map('u', on_hunk('undo'), 'harness: undo this hunk')
  map('y', on_hunk('keep'), 'harness: keep this hunk')
end

vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('harness.changes', { clear = true }),
  pattern = 'qf',
  callback = function(args)
    if in_list() then
      set_keys(args.buf)
    end
  end,
})

--- `:HarnessChanges [run]`.
--- @param run string?
function M.open(run)
  local what = target(run)
  if not what then
    notify.info('no conversation yet: :HarnessRun or :HarnessAsk starts one')
    return
  end
  local client = client_for()
  if not client then
    notify.error('no harness-lsp serves this buffer')
    return
  end
  rpc.request(client, 'harness.run.changes', what, function(files)
    if type(files) ~= 'table' or #files == 0 then
      notify.info('nothing changed')
      fill(client, {}, what)
      return
    end
    fill(client, files, what)
    vim.cmd('botright copen')
    set_keys(vim.api.nvim_get_current_buf())
  end)
end

--- A diff of `file` against its text before the agent: a new tab with the file and, beside
--- it, the before text in a scratch buffer.
--- @param file table? a harness.run.changes entry
function M.diff(file)
  if file then
    M.show_diff(shown.client, file)
  end
end

--- The diff of `file` (a harness.run.changes entry) of `client`'s workspace, in a new tab.
function M.show_diff(client, file)
  local root = client and client.root_dir or vim.fn.getcwd()
  vim.cmd.tabnew(vim.fn.fnameescape(vim.fs.joinpath(root, file.path)))
  vim.cmd('diffthis')
  local ft = vim.bo.filetype
  vim.cmd('leftabove vnew')
  local before = vim.api.nvim_get_current_buf()
  local lines = type(file.before) == 'string' and vim.split(file.before, '\n') or {}
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(before, 0, -1, false, lines)
  vim.bo[before].buftype, vim.bo[before].bufhidden = 'nofile', 'wipe'
  vim.bo[before].modifiable, vim.bo[before].filetype = false, ft
  pcall(vim.api.nvim_buf_set_name, before, 'harness://before/' .. file.path)
  vim.cmd('diffthis')
end

local function revert(file, force)
  local args = vim.tbl_extend('force', shown.target, { path = file.path, force = force or nil })
  rpc.request(shown.client, 'harness.run.revertFile', args, function(result)
    local action = type(result) == 'table' and result.action or 'restored'
    if action == 'refused' and not force then
      local why = type(result.reason) == 'string' and (': ' .. result.reason) or ''
      commands.confirm(
        ('%s was not put back%s. Overwrite it?'):format(file.path, why),
        'Overwrite it',
        'Keep it',
        function()
          revert(file, true)
        end
      )
      return
    end
    notify.info(('%s: %s'):format(file.path, action))
    M.open(shown.target.runId and tostring(shown.target.runId) or nil)
  end)
end

--- `X` in the list: put the file back as it was before the agent.
--- @param file table?
function M.revert_file(file)
  if file then
    revert(file, false)
  end
end

--- "2026-12-07 11:42 · finished · 3 turns · 12.4k tokens · Fix the add function": when,
--- how its last run ended, its size and its first goal, one line.
--- @param c table a harness.conversations entry
--- @return string
function M.history_item(c)
  local when = tostring(c.finishedAt ~= vim.NIL and c.finishedAt or c.startedAt or '?')
  when = when:gsub('T', ' '):match('^(%d+%-%d+%-%d+ %d+:%d+)') or when
  local outcome = c.lastOutcome ~= vim.NIL and c.lastOutcome or nil
  local line = ('%s · %s · %s · %s tokens · %s'):format(
    when,
    outcome and tostring(outcome):gsub('_', ' ') or 'in progress',
    require('harness.text').count(c.runs or 0, 'turn'),
    require('harness.statusline').tokens(c.spentTokens),
    tostring(c.goal)
  )
  return notify.one_line(line, 100)
end

--- `:Harness history`: pick a conversation of the workspace and draw it.
function M.history()
  rpc.with_client(function(client)
    local args = client.root_dir and { workspaceFolder = client.root_dir } or {}
    rpc.request(client, 'harness.conversations', args, function(list)
      if type(list) ~= 'table' or #list == 0 then
        notify.info('no conversation yet in this workspace')
        return
      end
      vim.ui.select(list, {
        prompt = 'Harness conversation: ',
        kind = 'harness.conversation',
        format_item = M.history_item,
      }, function(choice)
        if choice then
          M.load(client, choice.conversationId)
        end
      end)
    end)
  end)
end

--- Draw conversation `id` from the store.
function M.load(client, id)
  rpc.request(client, 'harness.run.events', { conversationId = id }, function(events)
    events = type(events) == 'table' and (events.events or events) or {}
    conversation.load(client.id, id, events)
    require('harness.convbuf').open(true)
  end)
end

return M
