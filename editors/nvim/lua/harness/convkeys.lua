--- harness.convkeys: the keys of the conversation buffer (`:help harness-conversation-keys`,
--- `g?` lists them). Keys typed on the prompt line are text: they never answer an approval.
--- An approval is answered with `a` `A` `d` on its own lines, or from anywhere in the buffer
--- with the `approve_keys` of setup() (default `<leader>a` `<leader>A` `<leader>d`), or with
--- `:HarnessApprove allow|run|deny`. <CR> sends the prompt line, and on a row opens the whole
--- result (a write: its diff); `R` on a turn restores the files to before it.
local config = require('harness.config')

local M = {}

local function convbuf()
  return require('harness.convbuf')
end

local function row()
  return vim.api.nvim_win_get_cursor(0)[1]
end

--- The oldest approval this conversation waits for.
local function pending()
  local c = require('harness.conversation').current()
  for _, item in ipairs(require('harness.approval').items()) do
    if not c.client_id or item.client_id == c.client_id then
      return item
    end
  end
end

--- Type on the prompt line, after its "> ": `i` at the cursor, `a` after it, `A` at the end.
local function to_prompt(how)
  local last = vim.api.nvim_buf_line_count(0)
  local line = vim.api.nvim_buf_get_lines(0, last - 1, last, false)[1] or ''
  local r, col = unpack(vim.api.nvim_win_get_cursor(0))
  col = r == last and col or #line
  if how == 'a' and r == last and #line > 0 then
    col = col + 1
  end
  local PROMPT = convbuf().PROMPT
  col = math.max(col, #PROMPT)
  vim.api.nvim_win_set_cursor(0, { last, math.min(col, #line) })
  convbuf().guard()
  if how == 'A' or col >= #line then
    vim.cmd('startinsert!')
  else
    vim.cmd('startinsert')
  end
end

--- `key` (`i` `a` `A`) on an approval's line answers it; elsewhere (the prompt line too)
--- it goes to typing on the prompt line, at once (the keys typed next are the text).
local function type_or_answer(key, answers)
  return function()
    local item = answers and convbuf().approval_at(row())
    if item then
      require('harness.approval').answer_key(item, key)
      return
    end
    to_prompt(key)
  end
end

--- `d` on an approval's line denies it; elsewhere it is Vim's `d` (the transcript is
--- read-only: it changes nothing there). An expr mapping: the answer (which closes the
--- approval's float) is made once the mapping has returned (textlock).
local function deny_or_d()
  local item = convbuf().approval_at(row())
  if item then
    vim.schedule(function()
      require('harness.approval').answer_key(item, 'd')
    end)
    return ''
  end
  return 'd'
end

local function answer(word)
  return function()
    local item = pending()
    if not item then
      require('harness.notify').info('no approval is waiting')
      return
    end
    require('harness.approval').answer_word(item, word)
  end
end

local function open_row()
  local r = row()
  if convbuf().is_prompt(r) then
    convbuf().send()
    return
  end
  local e = convbuf().entry_at(r)
  if e then
    require('harness.convopen').open(e)
  end
end

local function restore_row()
  local e = convbuf().entry_at(row())
  if not e or e.kind ~= 'user' or e.steer then
    require('harness.notify').info(
      'R on a turn (a "▶ you:" line) restores the files to before it'
    )
    return
  end
  require('harness.convopen').restore(e)
end

local HELP = {
  { '<CR>', 'send the prompt line; on a row: the whole result, or the diff' },
  { 'i a A', 'type on the prompt line (the transcript is read-only)' },
  { 'a A d', "on an approval's lines: allow · allow for the run · deny" },
  { 'approve', 'anywhere: allow · allow for the run · deny (approve_keys)' },
  { 'zo zc', 'open / close the result folded under a row' },
  { 'R', 'on a turn: restore the files to before it (lists them first)' },
  { '<C-x><C-o>', 'on the prompt line: @file, @symbol, /prompt' },
  { 'q', 'close the conversation' },
  { 'g?', 'these keys' },
}

--- The lines `g?` shows.
--- @return string[]
function M.help_lines()
  local keys = config.options.approve_keys or {}
  local lines = { 'harness conversation keys' }
  for _, h in ipairs(HELP) do
    local lhs = h[1] == 'approve'
        and table.concat({ keys.allow or '-', keys.allow_run or '-', keys.deny or '-' }, ' ')
      or h[1]
    lines[#lines + 1] = ('  %-22s %s'):format(lhs, h[2])
  end
  lines[#lines + 1] = '  :HarnessApprove allow|run|deny   from anywhere in Neovim'
  return lines
end

--- `g?`: the keys, in a float closed by any key.
function M.help()
  local lines = M.help_lines()
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable, vim.bo[b].bufhidden = false, 'wipe'
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(b, true, {
    relative = 'win',
    win = vim.api.nvim_get_current_win(),
    row = 0,
    col = 0,
    width = math.min(width + 1, vim.api.nvim_win_get_width(0) - 2),
    height = #lines,
    style = 'minimal',
    border = config.options.border,
  })
  vim.wo[win].wrap = true
  for _, lhs in ipairs({ 'q', '<Esc>', 'g?', '<CR>' }) do
    vim.keymap.set('n', lhs, '<Cmd>close<CR>', { buffer = b, nowait = true })
  end
end

--- The hint under an approval in the buffer.
function M.approval_hint()
  local keys = config.options.approve_keys or {}
  local leader = vim.g.mapleader or '\\'
  local anywhere = keys.allow and (' · anywhere %s'):format(keys.allow:gsub('<[Ll]eader>', leader))
    or ''
  return 'a allow · A allow for the run · d deny' .. anywhere .. ' · g? keys'
end

--- The buffer's mappings.
--- @param b integer
function M.set(b)
  local function map(mode, lhs, fn, desc, expr)
    vim.keymap.set(mode, lhs, fn, { buffer = b, nowait = true, expr = expr, desc = desc })
  end
  map('n', '<CR>', open_row, 'harness: send the prompt line / open the row')
  map('i', '<CR>', function()
    vim.cmd('stopinsert')
    vim.schedule(convbuf().send)
  end, 'harness: send the prompt line')
  map('n', 'i', type_or_answer('i', false), 'harness: type on the prompt line')
  map('n', 'a', type_or_answer('a', true), 'harness: allow (on the approval), or type')
  map('n', 'A', type_or_answer('A', true), 'harness: allow for the run (on the approval), or type')
  map('n', 'd', deny_or_d, 'harness: deny (on the approval)', true)
  map('n', 'R', restore_row, 'harness: restore the files to before this turn')
  map('n', 'g?', M.help, 'harness: the keys of this buffer')
  map('n', 'q', '<Cmd>close<CR>', 'harness: close the conversation')
  local keys = config.options.approve_keys or {}
  for word, lhs in pairs({ allow = keys.allow, run = keys.allow_run, deny = keys.deny }) do
    if lhs then
      map('n', lhs, answer(word), 'harness: ' .. word .. ' the approval waiting')
    end
  end
end

return M
