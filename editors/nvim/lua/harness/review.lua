--- harness.review: review by hunk in the code buffers (`:help harness-review`) — a sign on
--- each hunk the agent changed and nobody reviewed yet (harness.run.changes' `hunks`), `]h`
--- `[h` to move between them, and keys to keep one (harness.run.keep) or undo it
--- (harness.run.revertHunk: the lines from before put back, the buffer reloaded; what the
--- undo broke is shown as diagnostics when the server names it). `:HarnessHunk keep|undo`
--- does the same on the hunk under the cursor.
local config = require('harness.config')
local notify = require('harness.notify')
local rpc = require('harness.rpc')

local M = {}

local ns = vim.api.nvim_create_namespace('harness.hunks')
local undo_ns = vim.api.nvim_create_namespace('harness.undo')
local shown = { by_path = {}, target = nil, client = nil } ---@type table
local SIGNS = { add = '+', change = '~', delete = '_' }

local function kind(h)
  if (h.oldLines or 0) == 0 then
    return 'add'
  end
  return (h.newLines or 0) == 0 and 'delete' or 'change'
end

--- Lines (1-based, inclusive) of hunk `h` in the agent's text.
local function span(h)
  local first = math.max(1, tonumber(h.newStart) or 1)
  return first, first + math.max(1, tonumber(h.newLines) or 0) - 1
end

local function pending(path)
  local out = {}
  for _, h in ipairs(shown.by_path[path] or {}) do
    if h.state == 'pending' then
      out[#out + 1] = h
    end
  end
  return out
end

local function path_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  return name ~= '' and vim.fs.normalize(name) or nil
end

local function set_keys(buf)
  if vim.b[buf].harness_hunk_keys then
    return
  end
  vim.b[buf].harness_hunk_keys = true
  local keys = config.options.hunk_keys or {}
  local actions = {
    next = { M.next, 'next hunk to review' },
    prev = { M.prev, 'previous hunk to review' },
    undo = { M.undo, 'undo the hunk under the cursor' },
    keep = { M.keep, 'keep the hunk under the cursor' },
  }
  for name, action in pairs(actions) do
    if keys[name] then
      vim.keymap.set('n', keys[name], action[1], { buffer = buf, desc = 'harness: ' .. action[2] })
    end
  end
end

--- Draw the signs of buffer `buf` (its pending hunks).
function M.draw(buf)
  if not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  local path = path_of(buf)
  local hunks = path and pending(path) or {}
  local count = vim.api.nvim_buf_line_count(buf)
  for _, h in ipairs(hunks) do
    local first, last = span(h)
    local k = kind(h)
    for line = first, math.min(last, count) do
      pcall(vim.api.nvim_buf_set_extmark, buf, ns, line - 1, 0, {
        sign_text = SIGNS[k],
        sign_hl_group = k == 'add' and 'DiffAdd' or k == 'delete' and 'DiffDelete' or 'DiffChange',
        priority = 20,
      })
    end
  end
  if hunks[1] then
    set_keys(buf)
  end
end

local function draw_all()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' then
      M.draw(buf)
    end
  end
end

--- Keep what harness.run.changes gave: `files` of `target` ({runId} or {conversationId}).
function M.set(client, target, files)
  local root = client.root_dir or vim.fn.getcwd()
  shown = { by_path = {}, target = target, client = client }
  for _, f in ipairs(files or {}) do
    shown.by_path[vim.fs.normalize(vim.fs.joinpath(root, f.path))] = f.hunks or {}
  end
  draw_all()
end

--- Ask the server again and draw the signs.
function M.refresh(client, target)
  client, target = client or shown.client, target or shown.target
  if not (client and target) then
    return
  end
  rpc.request(client, 'harness.run.changes', target, function(files)
    M.set(client, target, type(files) == 'table' and files or {})
  end)
end

--- The pending hunk under the cursor (or the nearest after it, on its line range).
local function here()
  local path = path_of(0)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  for _, h in ipairs(path and pending(path) or {}) do
    local first, last = span(h)
    if line >= first and line <= last then
      return h, path
    end
  end
  notify.info('no hunk to review on this line (]h goes to the next)')
end

local function go(step)
  local path = path_of(0)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local hunks = path and pending(path) or {}
  table.sort(hunks, function(a, b)
    return span(a) < span(b)
  end)
  local pick
  for i = step > 0 and 1 or #hunks, step > 0 and #hunks or 1, step do
    local first = span(hunks[i])
    if (step > 0 and first > line) or (step < 0 and first < line) then
      pick = first
      break
    end
  end
  if not pick then
    notify.info(hunks[1] and 'no more hunks that way' or 'no hunk to review in this file')
    return
  end
  vim.api.nvim_win_set_cursor(0, { math.min(pick, vim.api.nvim_buf_line_count(0)), 0 })
end

function M.next()
  go(1)
end

function M.prev()
  go(-1)
end

local function rel(path)
  local root = shown.client and shown.client.root_dir or vim.fn.getcwd()
  return vim.fs.relpath and vim.fs.relpath(root, path) or path:sub(#root + 2)
end

local function broke(buf, result)
  local found = result.diagnostics
  if buf then
    vim.diagnostic.reset(undo_ns, buf)
  end
  if type(found) ~= 'table' or not found[1] then
    return ''
  end
  local items = {}
  for _, d in ipairs(found) do
    local r = d.range or {}
    local start = r.start or {}
    items[#items + 1] = {
      lnum = tonumber(start.line) or 0,
      col = tonumber(start.character) or 0,
      message = tostring(d.message or ''),
      severity = tonumber(d.severity) or vim.diagnostic.severity.ERROR,
      source = 'harness undo',
    }
  end
  if buf then
    vim.diagnostic.set(undo_ns, buf, items)
  end
  return (' · the undo introduced %d %s'):format(#items, #items == 1 and 'problem' or 'problems')
end

--- Undo hunk `h` of `path` (absolute); `buf` shows what the undo broke.
function M.undo_hunk(h, path, buf, on_done)
  local args = vim.tbl_extend('force', shown.target, { path = rel(path), hunkId = h.id })
  rpc.request(shown.client, 'harness.run.revertHunk', args, function(result)
    local more = broke(buf, result)
    notify.info(('hunk undone · %d to review%s'):format(tonumber(result.toReview) or 0, more))
    M.refresh()
    if on_done then
      on_done()
    end
  end)
end

--- Undo the hunk under the cursor.
function M.undo()
  local h, path = here()
  if h then
    M.undo_hunk(h, path, vim.api.nvim_get_current_buf())
  end
end

--- Keep hunk `h` of `path` (absolute).
function M.keep_hunk(h, path, on_done)
  local args = vim.tbl_extend('force', shown.target, { path = rel(path), hunkIds = { h.id } })
  rpc.request(shown.client, 'harness.run.keep', args, function(result)
    notify.info(('hunk kept · %d to review'):format(tonumber(result.toReview) or 0))
    M.refresh()
    if on_done then
      on_done()
    end
  end)
end

--- Keep the hunk under the cursor.
function M.keep()
  local h, path = here()
  if h then
    M.keep_hunk(h, path)
  end
end

--- `:HarnessHunk keep|undo|next|prev`.
function M.command(word)
  local fn = ({ keep = M.keep, undo = M.undo, next = M.next, prev = M.prev })[vim.trim(word or '')]
  if not fn then
    notify.error(':HarnessHunk takes keep, undo, next or prev')
    return
  end
  fn()
end

vim.api.nvim_create_autocmd('BufWinEnter', {
  group = vim.api.nvim_create_augroup('harness.review', { clear = true }),
  callback = function(args)
    if next(shown.by_path) then
      M.draw(args.buf)
    end
  end,
})

return M
