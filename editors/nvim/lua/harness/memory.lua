--- harness.memory: :HarnessMemory, a float of the workspace's and the global notes (key,
--- value, kind, pinned, run/step) where `d` deletes the note under the cursor, `p` pins or
--- unpins it, `a` adds an operator note, `<CR>` shows it whole and `q` closes.
local config = require('harness.config')
local notify = require('harness.notify')
local rpc = require('harness.rpc')

local M = {}

local view = { win = nil, buf = nil, rows = {}, client = nil } ---@type table
local HEADER_LINES = 2
local KEY_WIDTH = 24
local FIXED_WIDTH = KEY_WIDTH + 8 + 6 + 12 + 9 + 5 * 2 -- every column but the value

-- The value column: what the screen leaves, between 20 and 56 columns.
local function value_width()
  return math.max(20, math.min(56, vim.o.columns - 4 - FIXED_WIDTH))
end

local function cell(text, width)
  text = notify.one_line(tostring(text or ''), width)
  return text .. string.rep(' ', width - vim.fn.strdisplaywidth(text))
end

--- One row per note: "key  value  kind  pinned  run/step  scope".
--- @param note table
--- @return string
function M.row(note)
  local origin = note.runId ~= vim.NIL
      and note.runId ~= nil
      and ('run %s/%s'):format(tostring(note.runId), tostring(note.step))
    or 'you'
  return table.concat({
    cell(note.key, KEY_WIDTH),
    cell(note.value, value_width()),
    cell(note.kind, 8),
    cell(note.pinned and 'pinned' or '', 6),
    cell(origin, 12),
    note.scope or '',
  }, '  ')
end

local function header()
  return table.concat({
    cell('key', KEY_WIDTH),
    cell('value', value_width()),
    cell('kind', 8),
    cell('pin', 6),
    cell('run/step', 12),
    'scope',
  }, '  ')
end

local function note_at_cursor()
  if not (view.win and vim.api.nvim_win_is_valid(view.win)) then
    return nil
  end
  local line = vim.api.nvim_win_get_cursor(view.win)[1]
  return view.rows[line - HEADER_LINES]
end

local function draw(notes, root)
  local loading = notes == nil
  notes = notes or {}
  view.rows = notes
  local lines = { header(), string.rep('─', vim.fn.strdisplaywidth(header())) }
  for _, note in ipairs(notes) do
    lines[#lines + 1] = M.row(note)
  end
  if loading then
    lines[#lines + 1] = 'Loading the notes…'
  elseif not notes[1] then
    lines[#lines + 1] = ('No notes for %s yet: a adds one.'):format(root or 'this workspace')
  end
  vim.bo[view.buf].modifiable = true
  vim.api.nvim_buf_set_lines(view.buf, 0, -1, false, lines)
  vim.bo[view.buf].modifiable = false
  local widest = 0
  for _, line in ipairs(lines) do
    widest = math.max(widest, vim.fn.strdisplaywidth(line))
  end
  local width = math.min(vim.o.columns - 4, widest + 1)
  local height = math.min(vim.o.lines - 6, math.max(#lines, 3))
  local win_config = {
    relative = 'editor',
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    style = 'minimal',
    border = config.options.border,
    title = (' harness memory · %d %s '):format(#notes, #notes == 1 and 'note' or 'notes'),
    footer = ' d delete · p pin/unpin · a add · <CR> show · q close ',
    footer_pos = 'center',
  }
  if not config.options.border or config.options.border == 'none' then
    win_config.title, win_config.footer, win_config.footer_pos = nil, nil, nil
  end
  if view.win and vim.api.nvim_win_is_valid(view.win) then
    vim.api.nvim_win_set_config(view.win, win_config)
  else
    view.win = vim.api.nvim_open_win(view.buf, true, win_config)
    vim.wo[view.win].cursorline = true
    vim.wo[view.win].wrap = false
  end
  local cursor = vim.api.nvim_win_get_cursor(view.win)[1]
  local last = math.max(HEADER_LINES + 1, #lines)
  vim.api.nvim_win_set_cursor(view.win, { math.min(math.max(cursor, HEADER_LINES + 1), last), 0 })
end

--- Fetch the notes of both scopes and (re)draw the float.
function M.refresh()
  local client = view.client
  if not client then
    return
  end
  local folder = client.root_dir
  local args = folder and { workspaceFolder = folder } or {}
  rpc.request(client, 'harness.memory.list', args, function(workspace_notes)
    rpc.request(client, 'harness.memory.list', { scope = 'global' }, function(global_notes)
      if not (view.buf and vim.api.nvim_buf_is_valid(view.buf)) then
        return
      end
      local notes = vim.list_extend(vim.list_extend({}, workspace_notes), global_notes)
      draw(notes, folder)
      require('harness.events').refresh(client.id)
    end)
  end)
end

local function scoped(note, extra)
  local args = vim.tbl_extend('force', { key = note.key, scope = note.scope }, extra or {})
  if note.scope ~= 'global' and view.client.root_dir then
    args.workspaceFolder = view.client.root_dir
  end
  return args
end

function M.delete()
  local note = note_at_cursor()
  if not note then
    return
  end
  rpc.request(view.client, 'harness.memory.delete', scoped(note), function()
    notify.info(('deleted note `%s`'):format(note.key))
    M.refresh()
  end)
end

function M.toggle_pin()
  local note = note_at_cursor()
  if not note then
    return
  end
  rpc.request(
    view.client,
    'harness.memory.pin',
    scoped(note, { pinned = not note.pinned }),
    function()
      notify.info(('%s note `%s`'):format(note.pinned and 'unpinned' or 'pinned', note.key))
      M.refresh()
    end
  )
end

function M.add()
  vim.ui.input({ prompt = 'Note key: ' }, function(key)
    key = vim.trim(key or '')
    if key == '' then
      return
    end
    vim.ui.input({ prompt = ('Value of `%s`: '):format(key) }, function(value)
      if not value or vim.trim(value) == '' then
        return
      end
      local args = { key = key, value = value }
      if view.client.root_dir then
        args.workspaceFolder = view.client.root_dir
      end
      rpc.request(view.client, 'harness.memory.write', args, function(result)
        local evicted = result.evicted and #result.evicted or 0
        local extra = evicted > 0 and (' (%d evicted to make room)'):format(evicted) or ''
        notify.info(('wrote note `%s`%s'):format(key, extra))
        M.refresh()
      end)
    end)
  end)
end

function M.show()
  local note = note_at_cursor()
  if note then
    notify.info(('`%s` (%s): %s'):format(note.key, note.kind, note.value))
  end
end

function M.close()
  if view.win and vim.api.nvim_win_is_valid(view.win) then
    vim.api.nvim_win_close(view.win, true)
  end
  view.win = nil
end

--- :HarnessMemory
function M.open()
  rpc.with_client(function(client)
    view.client = client
    if not (view.buf and vim.api.nvim_buf_is_valid(view.buf)) then
      view.buf = vim.api.nvim_create_buf(false, true)
      vim.bo[view.buf].bufhidden = 'wipe'
      vim.bo[view.buf].filetype = 'harness-memory'
      local function map(lhs, fn, desc)
        vim.keymap.set('n', lhs, fn, { buffer = view.buf, nowait = true, desc = desc })
      end
      map('d', M.delete, 'harness: delete note')
      map('p', M.toggle_pin, 'harness: pin/unpin note')
      map('a', M.add, 'harness: add note')
      map('<CR>', M.show, 'harness: show note')
      map('q', M.close, 'harness: close')
      map('<Esc>', M.close, 'harness: close')
    end
    draw(nil, client.root_dir)
    M.refresh()
  end)
end

--- The float's window and buffer (nil when closed).
function M.window()
  if view.win and vim.api.nvim_win_is_valid(view.win) then
    return view.win, view.buf
  end
  return nil
end

return M
