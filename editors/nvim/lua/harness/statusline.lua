--- harness.statusline: the short status string for any statusline (lualine, heirline, a
--- plain 'statusline'), and `opts.statusline = true`, which adds it to the default one.
---
---   harness 12.4k/400k · 3.1k/24k · step 3/50        a run in progress
---   harness ⚠ approve (:HarnessApprove) · …          a run waiting for your answer
---   harness finished 12.4k/400k · 3.1k/24k · step 3/50   until the next run starts
---   harness · 3 notes                                 idle (from harness.status)
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
  local parts = {
    ('%s/%s'):format(M.tokens(budget.spentTokens), M.tokens(budget.tokenBudget)),
  }
  if budget.requestTokens and budget.contextCeiling then
    parts[#parts + 1] = ('%s/%s'):format(
      M.tokens(budget.requestTokens),
      M.tokens(budget.contextCeiling)
    )
  end
  if budget.step then
    parts[#parts + 1] = budget.maxSteps and ('step %d/%d'):format(budget.step, budget.maxSteps)
      or ('step %d'):format(budget.step)
  end
  return table.concat(parts, ' · ')
end

--- The status of the harness client serving `bufnr` ('' when none does), as a 'statusline'
--- format string: plain text with `%` doubled, so nothing in it is ever evaluated.
--- @param bufnr integer?
--- @return string
function M.text(bufnr)
  return text.plain(M.raw(bufnr), { statusline = true })
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
    head = head .. ' ⚠ approve (:HarnessApprove)'
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
    if run.active then
      return ('%s · run %d starting'):format(head, run.runId)
    end
    return head .. label .. ' · ' .. M.tokens(run.spentTokens) .. ' tokens'
  end
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
