--- harness.convbuf: the conversation buffer of `:Harness` (SPEC §11, `:help harness-conversation`)
--- — `filetype=harness`: the user's turns, the model's words as they stream (its answer
--- once, as its words), a row per tool call (✓ done, ✗ refused/denied/failed and why, …
--- waiting) with the head of its result folded under it (the output's first and last lines,
--- a write's diff), approvals waiting for an answer, each run's end on one line, and a
--- prompt line at the bottom. The transcript is read-only: only the prompt line can be
--- changed. Everything from the model or the repository is drawn as plain text
--- (harness.text). The window is harness.convwin's, the keys harness.convkeys'.
local conversation = require('harness.conversation')
local statusline = require('harness.statusline')
local text = require('harness.text')

local M = {}

M.PROMPT = '> '
local PROMPT = M.PROMPT
local ICONS = { ok = '✓', refused = '✗', denied = '✗', failed = '✗', waiting = '…' }
M.RESULT = '    │ '
local RESULT = M.RESULT

local buf ---@type integer?
local approval_rows = {} ---@type table<integer, table> row → pending approval item
local entry_rows = {} ---@type table<integer, harness.Entry> row → the entry drawn there
local folds = {} ---@type { [1]: integer, [2]: integer, [3]: harness.Entry }[] result heads
local opened = {} ---@type table<harness.Entry, boolean> results whose fold the user opened
local drawn = 0 -- the lines above the prompt line, as last rendered
local pending_render = false

local function valid()
  return buf ~= nil and vim.api.nvim_buf_is_valid(buf)
end

local function header(c)
  local parts = { 'harness' }
  parts[#parts + 1] = c.id and ('conversation %d'):format(c.id) or 'new conversation'
  local b = c.budget
  if b then
    if b.step then
      parts[#parts + 1] = ('step %s/%s'):format(tostring(b.step), tostring(b.maxSteps or '?'))
    end
    parts[#parts + 1] = ('%s/%s tokens'):format(
      statusline.tokens(b.spentTokens),
      statusline.tokens(b.tokenBudget)
    )
    if tonumber(b.costUsd) then
      parts[#parts + 1] = ('$%.2f'):format(b.costUsd)
    end
  end
  return table.concat(parts, ' · ')
end

local function push_text(lines, prefix, s, e)
  for _, line in ipairs(text.lines(s)) do
    lines[#lines + 1] = prefix .. line
    if e then
      entry_rows[#lines] = e
    end
  end
end

--- The facts of a result's summary the row does not say already ("2 lines", "exit 0").
local function facts(e)
  local s = e.summary
  if type(s) ~= 'string' then
    return nil
  end
  local rest = s:match(' · (.*)$')
  return rest and text.plain(rest) or nil
end

local function tool_lines(lines, e)
  local icon = ICONS[e.status] or '…'
  local line = ('  %s %s'):format(icon, text.plain(e.text))
  local more = facts(e)
  if more then
    line = line .. ' · ' .. more
  end
  if e.status == 'waiting' and e.asked and not e.decision then
    line = line .. ' — waiting for your answer'
  elseif e.why then
    line = line .. ' — ' .. text.plain(e.why)
  elseif e.decision and e.status == 'waiting' then
    line = line .. ' — ' .. text.plain(e.decision)
  end
  lines[#lines + 1] = line
  entry_rows[#lines] = e
  if e.detail and e.detail ~= '' then
    local first = #lines + 1
    push_text(lines, RESULT, e.detail, e)
    folds[#folds + 1] = { first, #lines, e }
  end
end

local draw = {}

function draw.user(lines, e)
  lines[#lines + 1] = ''
  local who = e.steer and '▶ you (while it works): ' or '▶ you: '
  push_text(lines, who, text.plain(e.text), e)
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
  push_text(lines, '■ ', text.plain(e.text), e)
end
draw['end'] = draw.finish

function draw.notice(lines, e)
  push_text(lines, '! ', e.text)
end

local function approval_lines(lines)
  approval_rows = {}
  local c = conversation.current()
  local keys = require('harness.convkeys').approval_hint()
  for _, item in ipairs(require('harness.approval').items()) do
    if not c.client_id or item.client_id == c.client_id then
      local head = text.lines(item.message)
      local first = #lines + 1
      lines[#lines + 1] = '⚠ ' .. (head[1] or 'approval needed')
      for i = 2, #head do
        lines[#lines + 1] = '  ' .. head[i]
      end
      lines[#lines + 1] = '  ' .. keys
      for row = first, #lines do
        approval_rows[row] = item
      end
    end
  end
end

--- The buffer's lines above the prompt.
--- @return string[]
function M.lines()
  local c = conversation.current()
  entry_rows, folds = {}, {}
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

--- The approval drawn on `row` (1-based), if any.
function M.approval_at(row)
  return approval_rows[row]
end

--- The entry (a turn, a tool row, a run's end) drawn on `row`, if any.
--- @return harness.Entry?
function M.entry_at(row)
  return entry_rows[row]
end

--- What is typed on the prompt line (the last line).
--- @return string
function M.prompt_text()
  local last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ''
  return last:sub(1, #PROMPT) == PROMPT and last:sub(#PROMPT + 1) or last
end

--- Whether `row` (1-based) is the prompt line.
function M.is_prompt(row)
  return valid() and row == vim.api.nvim_buf_line_count(buf)
end

--- Only the prompt line is modifiable: set as the cursor moves.
function M.guard()
  if valid() and vim.api.nvim_get_current_buf() == buf then
    vim.bo[buf].modifiable = M.is_prompt(vim.api.nvim_win_get_cursor(0)[1])
  end
end

--- The folds of `win` (manual: an expression would be evaluated on every line at every
--- delta): each result's head folded under its row, closed unless the user opened it.
local function remember_open(win)
  vim.api.nvim_win_call(win, function()
    for _, f in ipairs(folds) do -- what the user opened stays open
      if vim.fn.foldlevel(f[1]) > 0 and vim.fn.foldclosed(f[1]) == -1 then
        opened[f[3]] = true
      elseif vim.fn.foldlevel(f[1]) > 0 then
        opened[f[3]] = nil
      end
    end
  end)
end

local function refold(win)
  vim.api.nvim_win_call(win, function()
    vim.wo.foldmethod = 'manual'
    vim.cmd('silent! normal! zE')
    for _, f in ipairs(folds) do
      vim.cmd(('silent! %d,%dfold'):format(f[1], f[2]))
      if opened[f[3]] then
        vim.cmd(('silent! %dfoldopen'):format(f[1]))
      end
    end
  end)
end

--- Draw the conversation again; the prompt line (what you are typing) is left as it is.
function M.render()
  pending_render = false
  if not valid() then
    return
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local at_end = {}
  local wins = vim.fn.win_findbuf(buf)
  for _, win in ipairs(wins) do
    at_end[win] = vim.api.nvim_win_get_cursor(win)[1] >= count - 1
    remember_open(win)
  end
  local lines = M.lines()
  local last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ''
  vim.bo[buf].modifiable = true
  if last:sub(1, #PROMPT) == PROMPT then -- the prompt line as it is (the cursor stays put)
    vim.api.nvim_buf_set_lines(buf, 0, count - 1, false, lines)
  else -- the prompt line lost its "> ": drawn again with what is typed on it
    lines[#lines + 1] = PROMPT .. (last:match('^>%s?(.*)$') or last)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  drawn = vim.api.nvim_buf_line_count(buf) - 1
  local total = drawn + 1
  for _, win in ipairs(wins) do
    refold(win)
  end
  for win, follow in pairs(at_end) do
    if follow then
      local col = vim.api.nvim_win_get_cursor(win)[2]
      pcall(vim.api.nvim_win_set_cursor, win, { total, col })
    end
  end
  M.guard()
end

--- Render once the current event is handled (deltas come many at a time).
function M.schedule_render()
  if pending_render or not valid() then
    return
  end
  pending_render = true
  vim.schedule(M.render)
end

--- A change that reached the transcript (a join from the prompt line, `o`, a paste) is
--- undone by drawing the conversation again; the prompt line keeps what was typed.
local function changed()
  if not valid() then
    return
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local last = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ''
  if count ~= drawn + 1 or last:sub(1, #PROMPT) ~= PROMPT then
    M.schedule_render()
  end
end

--- Send the prompt line: steering the run in progress, else a follow-up in the
--- conversation shown (or a new one). `/name args` runs a prompt (harness.prompts).
function M.send()
  local goal = vim.trim(M.prompt_text())
  if goal == '' then
    require('harness.notify').info('type a message on the last line (after "> ") first')
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, -2, -1, false, { PROMPT })
  M.guard()
  require('harness.commands').say(goal)
end

local function create()
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'harness://conversation')
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1 -- an undo would bring back a transcript drawn before
  vim.bo[buf].filetype = 'harness'
  vim.bo[buf].omnifunc = "v:lua.require'harness.complete'.omnifunc"
  vim.bo[buf].completefunc = "v:lua.require'harness.complete'.omnifunc"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { PROMPT })
  require('harness.convkeys').set(buf)
  local group = vim.api.nvim_create_augroup('harness.convbuf.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'BufEnter', 'InsertEnter' }, {
    group = group,
    buffer = buf,
    callback = M.guard,
  })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = buf,
    callback = changed,
  })
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

--- Open the conversation (`focus`: go there), unless it is shown already.
--- @param focus boolean?
--- @return integer win
function M.open(focus)
  return require('harness.convwin').open(M.buffer(), M.window(), focus)
end

--- `:Harness`: show the conversation, or close its window when shown.
function M.toggle()
  require('harness.convwin').toggle(M.buffer(), M.window())
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
