--- harness.convbuf: the conversation buffer of `:Harness` (SPEC §11, `:help harness-conversation`)
--- — `filetype=harness`, in a split: the user's turns, the model's words as they stream, a
--- line per tool call (✓ done, ✗ refused/denied/failed and why, … waiting) with its result
--- folded under it, approvals waiting for an answer (`a` allow, `A` allow for the run, `d`
--- deny on their line), each run's end whole, and a prompt line at the bottom: `i`/`a`
--- there to type, <CR> sends (a follow-up in the same conversation). Everything from the
--- model or the repository is drawn as plain text (harness.text).
local conversation = require('harness.conversation')
local statusline = require('harness.statusline')
local text = require('harness.text')

local M = {}

local PROMPT = '> '
local ICONS = { ok = '✓', refused = '✗', denied = '✗', failed = '✗', waiting = '…' }
local RESULT = '    │ '

local buf ---@type integer?
local approval_rows = {} ---@type table<integer, table> row → pending approval item
local pending_render = false

local function valid()
  return buf ~= nil and vim.api.nvim_buf_is_valid(buf)
end

local function header(c)
  local parts = { 'harness' }
  parts[#parts + 1] = c.id and ('conversation %d'):format(c.id) or 'new conversation'
  local b = c.budget
  if b then
    parts[#parts + 1] = ('%s/%s tokens'):format(
      statusline.tokens(b.spentTokens),
      statusline.tokens(b.tokenBudget)
    )
    if b.step then
      parts[#parts + 1] = ('step %s/%s'):format(tostring(b.step), tostring(b.maxSteps or '?'))
    end
    if tonumber(b.costUsd) then
      parts[#parts + 1] = ('$%.2f'):format(b.costUsd)
    end
  end
  return table.concat(parts, ' · ')
end

local function push_text(lines, prefix, s)
  for _, line in ipairs(text.lines(s)) do
    lines[#lines + 1] = prefix .. line
  end
end

local function tool_lines(lines, e)
  local icon = ICONS[e.status] or '…'
  local line = ('  %s %s'):format(icon, text.plain(e.text))
  if e.status == 'waiting' and e.asked and not e.decision then
    line = line .. ' — waiting for your answer'
  elseif e.why then
    line = line .. ' — ' .. text.plain(e.why)
  elseif e.decision and e.status == 'waiting' then
    line = line .. ' — ' .. text.plain(e.decision)
  end
  lines[#lines + 1] = line
  if e.summary and e.summary ~= '' then
    push_text(lines, RESULT, e.summary)
  end
end

local draw = {}

function draw.user(lines, e)
  lines[#lines + 1] = ''
  push_text(lines, '▶ you: ', text.plain(e.text))
  for _, a in ipairs(e.attached or {}) do
    lines[#lines + 1] = '  attached ' .. text.plain(a)
  end
end

function draw.words(lines, e)
  push_text(lines, '  ', e.text)
end

function draw.tool(lines, e)
  tool_lines(lines, e)
end

function draw.finish(lines, e)
  push_text(lines, '■ ', text.plain(e.text))
end
draw['end'] = draw.finish

function draw.notice(lines, e)
  push_text(lines, '! ', e.text)
end

local function approval_lines(lines)
  approval_rows = {}
  local c = conversation.current()
  for _, item in ipairs(require('harness.approval').items()) do
    if not c.client_id or item.client_id == c.client_id then
      local head = text.lines(item.message)
      lines[#lines + 1] = '⚠ ' .. (head[1] or 'approval needed')
      for i = 2, #head do
        lines[#lines + 1] = '  ' .. head[i]
      end
      lines[#lines + 1] = '  a allow · A allow for the run · d deny'
      for row = #lines - #head, #lines do
        approval_rows[row] = item
      end
    end
  end
end

--- The buffer's lines above the prompt.
--- @return string[]
function M.lines()
  local c = conversation.current()
  local lines = { header(c) }
  for _, e in ipairs(c.entries) do
    local fn = draw[e.kind]
    if fn then
      fn(lines, e)
    end
  end
  lines[#lines + 1] = ''
  approval_lines(lines)
  return lines
end

local function prompt_text()
  local last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ''
  return last:sub(1, #PROMPT) == PROMPT and last:sub(#PROMPT + 1) or ''
end

--- Draw the conversation again; the prompt line (what you are typing) is left as it is.
function M.render()
  pending_render = false
  if not valid() then
    return
  end
  local lines = M.lines()
  local count = vim.api.nvim_buf_line_count(buf)
  local at_end = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    at_end[win] = vim.api.nvim_win_get_cursor(win)[1] >= count - 1
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, count - 1, false, lines)
  local total = vim.api.nvim_buf_line_count(buf)
  for win, follow in pairs(at_end) do
    if follow then
      local col = vim.api.nvim_win_get_cursor(win)[2]
      pcall(vim.api.nvim_win_set_cursor, win, { total, col })
    end
  end
end

--- Render once the current event is handled (deltas come many at a time).
function M.schedule_render()
  if pending_render or not valid() then
    return
  end
  pending_render = true
  vim.schedule(M.render)
end

--- Send the prompt line: a follow-up in the conversation shown (or a new one).
function M.send()
  local goal = vim.trim(prompt_text())
  if goal == '' then
    require('harness.notify').info('type a message on the last line (after "> ") first')
    return
  end
  vim.api.nvim_buf_set_lines(buf, -2, -1, false, { PROMPT })
  require('harness.commands').ask(goal)
end

local function to_prompt()
  local last = vim.api.nvim_buf_line_count(buf)
  local line = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or PROMPT
  vim.api.nvim_win_set_cursor(0, { last, #line })
  vim.cmd('startinsert!')
end

--- `a`, `A`, `d` on an approval's lines answer it; elsewhere `a`/`A` go to the prompt
--- (`d` does what it always does). These are expr mappings, which run under textlock: the
--- answer (which closes the approval's float) is made once the mapping has returned.
local function answer_or(key, otherwise)
  return function()
    local item = approval_rows[vim.api.nvim_win_get_cursor(0)[1]]
    if item then
      vim.schedule(function()
        require('harness.approval').answer_key(item, key)
      end)
      return ''
    end
    if otherwise then
      vim.schedule(otherwise)
      return ''
    end
    return key
  end
end

local function set_keys(b)
  local function map(mode, lhs, fn, desc, expr)
    vim.keymap.set(mode, lhs, fn, { buffer = b, nowait = true, expr = expr, desc = desc })
  end
  map('n', '<CR>', M.send, 'harness: send the prompt line')
  map('i', '<CR>', function()
    vim.cmd('stopinsert')
    vim.schedule(M.send)
  end, 'harness: send the prompt line')
  map('n', 'i', to_prompt, 'harness: type on the prompt line')
  map('n', 'a', answer_or('a', to_prompt), 'harness: allow, or type on the prompt line', true)
  map('n', 'A', answer_or('A', to_prompt), 'harness: allow for the run, or type', true)
  map('n', 'd', answer_or('d'), 'harness: deny the approval on this line', true)
  map('n', 'q', '<Cmd>close<CR>', 'harness: close the conversation')
end

local function create()
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'harness://conversation')
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'harness'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { PROMPT })
  set_keys(buf)
  M.render()
end

--- The conversation buffer (created when first needed).
--- @return integer
function M.buffer()
  if not valid() then
    create()
  end
  return buf --[[@as integer]]
end

--- The window showing the buffer in this tab, if any.
--- @return integer?
function M.window()
  if not valid() then
    return nil
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
end

local function style(win)
  local wo = vim.wo[win][0]
  wo.wrap, wo.linebreak, wo.number, wo.relativenumber = true, true, false, false
  wo.foldmethod = 'expr'
  wo.foldexpr = "getline(v:lnum)=~'^    │'?1:0"
  wo.foldlevel, wo.foldminlines = 0, 0
  wo.foldenable = true
end

--- Open the conversation in a split (`focus`: go there), unless it is shown already.
--- @param focus boolean?
--- @return integer win
function M.open(focus)
  local win = M.window()
  if not win then
    local current = vim.api.nvim_get_current_win()
    local width = math.max(50, math.floor(vim.o.columns * 0.4))
    win = vim.api.nvim_open_win(M.buffer(), true, { split = 'right', width = width, win = -1 })
    style(win)
    local last = vim.api.nvim_buf_line_count(buf --[[@as integer]])
    vim.api.nvim_win_set_cursor(win, { last, 0 })
    if not focus then
      vim.api.nvim_set_current_win(current)
    end
  elseif focus then
    vim.api.nvim_set_current_win(win)
  end
  return win
end

--- `:Harness`: show the conversation, or close its window when shown.
function M.toggle()
  local win = M.window()
  if win and #vim.api.nvim_tabpage_list_wins(0) > 1 then
    vim.api.nvim_win_close(win, false)
    return
  end
  M.open(true)
end

vim.api.nvim_create_autocmd('User', {
  group = vim.api.nvim_create_augroup('harness.convbuf', { clear = true }),
  pattern = 'HarnessStatus',
  callback = function(args)
    if args.data and args.data.kind == 'approval' then
      M.schedule_render()
    end
  end,
})

return M
