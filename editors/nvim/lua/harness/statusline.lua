--- harness.statusline: the short status string for any statusline (lualine, heirline, a
--- plain 'statusline'), and `opts.statusline = true`, which adds it to the default one.
--- The most urgent first (the approval cue, the step), so a narrow statusline loses the
--- tail; drawn in a statusline, the item cuts its own tail to fit beside the file name
--- (Neovim would cut a too-long statusline from the left).
---
---   harness step 3/50 · 12.4k/400k · 3.1k/24k          a run in progress
---   harness ⚠ approve · step 3/50 · 12.4k/400k · …      a run waiting for your answer
---   harness finished step 3/50 · 12.4k/400k · 3.1k/24k  until the next run starts
---   harness · 3 notes                                   idle (from harness.status)
local state = require('harness.state')
local text = require('harness.text')

local M = {}

--- 950 · 12.4k · 400k · 2M · 1.5M
--- @param n number?
--- @return string
function M.tokens(n)
  if type(n) ~= 'number' then
    return '?'
  end
  local function short(value, suffix)
    local figure = ('%.1f'):format(value):gsub('%.0$', '')
    return figure .. suffix
  end
  if n < 1000 then
    return tostring(math.floor(n))
  elseif n < 999950 then
    return short(n / 1000, 'k')
  end
  return short(n / 1e6, 'M')
end

local function figures(budget)
  local parts = {}
  if budget.step then
    parts[1] = budget.maxSteps and ('step %d/%d'):format(budget.step, budget.maxSteps)
      or ('step %d'):format(budget.step)
  end
  parts[#parts + 1] = ('%s/%s'):format(M.tokens(budget.spentTokens), M.tokens(budget.tokenBudget))
  if budget.requestTokens and budget.contextCeiling then
    parts[#parts + 1] = ('%s/%s'):format(
      M.tokens(budget.requestTokens),
      M.tokens(budget.contextCeiling)
    )
  end
  return table.concat(parts, ' · ')
end

-- Columns a statusline keeps for the rest (file name, flags, position) beside the item.
local OTHERS = 44

--- `s` cut at its end to `room` display columns (with …).
local function fit(s, room)
  if vim.fn.strdisplaywidth(s) <= room then
    return s
  end
  local cut = vim.fn.strcharpart(s, 0, room - 1)
  while vim.fn.strdisplaywidth(cut) > room - 1 do
    cut = vim.fn.strcharpart(cut, 0, vim.fn.strchars(cut) - 1)
  end
  return cut .. '…'
end

--- The room of the item in the statusline being drawn (nil outside one).
local function room()
  local win = vim.g.statusline_winid
  if type(win) ~= 'number' or not vim.api.nvim_win_is_valid(win) then
    return nil
  end
  local width = vim.o.laststatus == 3 and vim.o.columns or vim.api.nvim_win_get_width(win)
  return math.max(16, width - OTHERS)
end

--- The status of the harness client serving `bufnr` ('' when none does), as a 'statusline'
--- format string: plain text with `%` doubled, so nothing in it is ever evaluated.
--- @param bufnr integer?
--- @return string
function M.text(bufnr)
  local s = text.plain(M.raw(bufnr))
  local columns = room()
  if columns then
    s = fit(s, columns)
  end
  return (s:gsub('%%', '%%%%'))
end

--- The status, unescaped.
--- @param bufnr integer?
--- @return string
function M.raw(bufnr)
  local s = state.for_buffer(bufnr or vim.api.nvim_get_current_buf())
  if not s then
    return ''
  end
  local head = 'harness'
  if s.approvals > 0 then
    head = head .. ' ⚠ approve ·'
  end
  local run = s.run
  if run then
    local outcome = run.outcome or 'ended'
    if require('harness.notify').OUTCOMES[outcome] then -- a known outcome: in words
      outcome = outcome:gsub('_', ' ')
    end
    local label = run.active and '' or (' ' .. tostring(outcome))
    if s.budget then
      return head .. label .. ' ' .. figures(s.budget)
    end
    head = head:gsub(' ·$', '')
    if run.active then
      return ('%s · run %d starting'):format(head, run.runId)
    end
    return head .. label .. ' · ' .. M.tokens(run.spentTokens) .. ' tokens'
  end
  head = head:gsub(' ·$', '')
  if s.notes then
    return ('%s · %d %s'):format(head, s.notes, s.notes == 1 and 'note' or 'notes')
  end
  return head
end

-- `%{%…%}`: the text is a format string whose `%%` shows as `%` (see M.text).
local ITEM = "%{%v:lua.require'harness'.statusline()%}"

--- Add the harness item to 'statusline' (opts.statusline = true): into Neovim's default
--- statusline before its right-aligned part, or at the end of your own.
function M.install()
  local current = vim.go.statusline
  if current:find('harness', 1, true) then
    return
  end
  if current == '' then
    current = '%<%f %h%w%m%r%=%-14.(%l,%c%V%) %P'
  end
  local at = current:find('%=', 1, true)
  if at then
    vim.go.statusline = current:sub(1, at - 1) .. ITEM .. ' ' .. current:sub(at)
  else
    vim.go.statusline = current .. ' ' .. ITEM
  end
end

return M
