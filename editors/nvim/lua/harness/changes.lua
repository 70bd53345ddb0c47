--- harness.changes: `:HarnessChanges` — the files the conversation (or a run) changed, in
--- the quickfix list (harness.run.changes). In that list <CR> opens a diff of the file
--- against its text before the agent touched it (the before text in a scratch buffer,
--- `:diffthis` on both) and `X` puts the file back (harness.run.revertFile; when someone
--- changed it since, it asks before forcing). `:Harness history` picks an earlier
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

local function fill(client, files, what)
  local root = client.root_dir or vim.fn.getcwd()
  shown = { files = files, target = what, client = client }
  local items = {}
  for _, f in ipairs(files) do
    items[#items + 1] = {
      filename = vim.fs.joinpath(root, f.path),
      lnum = 1,
      text = text.plain(('%s (runs %s)'):format(f.status, table.concat(f.runIds or {}, ', '))),
    }
  end
  vim.fn.setqflist({}, ' ', { title = TITLE, items = items })
end

local function set_keys()
  local qf = vim.fn.getqflist({ qfbufnr = 0 }).qfbufnr
  if qf == 0 then
    return
  end
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, function()
      if not in_list() then
        return lhs == '<CR>' and vim.cmd('.cc') or nil
      end
      fn(shown.files[vim.fn.line('.')])
    end, { buffer = qf, nowait = true, desc = desc })
  end
  map('<CR>', M.diff, 'harness: diff against the text before the agent')
  map('X', M.revert_file, 'harness: put this file back as it was')
end

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
    set_keys()
  end)
end

--- A diff of `file` against its text before the agent: a new tab with the file and, beside
--- it, the before text in a scratch buffer.
--- @param file table? a harness.run.changes entry
function M.diff(file)
  if not file then
    return
  end
  local root = shown.client and shown.client.root_dir or vim.fn.getcwd()
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
        format_item = function(c)
          local line = ('%d · %s · %d runs · %s'):format(
            c.conversationId,
            tostring(c.lastOutcome),
            c.runs or 0,
            tostring(c.goal)
          )
          return notify.one_line(line, 100)
        end,
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
    conversation.load(client.id, id, type(events) == 'table' and events or {})
    require('harness.convbuf').open(true)
  end)
end

return M
