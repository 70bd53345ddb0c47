--- harness.approvalview: the approval float's text and where it goes — inside the
--- conversation window when it is shown (at its bottom: the code window stays in view),
--- else the top-right corner of the screen; its answers are never cut off.
local text = require('harness.text')

local M = {}

local function wrap(lines, paragraph, width)
  local line = ''
  for word in paragraph:gmatch('%S+') do
    if line ~= '' and vim.fn.strdisplaywidth(line .. ' ' .. word) > width then
      lines[#lines + 1] = line
      line = word
    else
      line = line == '' and word or (line .. ' ' .. word)
    end
  end
  lines[#lines + 1] = line
end

--- The question of a `harness/approve` request, in the words of the server's dialog: every
--- text in it is shown as the server shows it already (escaped, ⏎ for a newline), and is
--- escaped again here as any server text is.
--- @return string
function M.question(params)
  local parts = {
    ('Harness run %s wants to %s `%s`%s. Allow it?'):format(
      tostring(params.runId),
      text.plain(tostring(params.act)),
      text.plain(tostring(params.target)),
      params.reason and (' (%s)'):format(text.plain(tostring(params.reason))) or ''
    ),
  }
  if params.command and params.command ~= params.target then
    parts[#parts + 1] = 'The whole command:\n' .. tostring(params.command)
  end
  if params.diff then
    local what = params.act == 'mcp' and 'The call:' or 'The change (control characters escaped):'
    parts[#parts + 1] = what .. '\n' .. tostring(params.diff)
  end
  local written = params.filesWritten or {}
  if written[1] then
    local names = table.concat(vim.tbl_map(tostring, written), ', ')
    parts[#parts + 1] = 'Files this run has written, which the command may run: ' .. names
  end
  return table.concat(parts, '\n')
end

--- The float's lines for `item` at `width`: the question wrapped, then the answers
--- (`focused`: with `[q] later`), an answer never cut in two.
--- @return string[] question, string[] answers
function M.lines(item, width, focused)
  local lines = {}
  for _, paragraph in ipairs(text.lines(item.message)) do
    wrap(lines, paragraph, width)
  end
  lines[#lines + 1] = ''
  local choices = {}
  for _, k in ipairs(item.keys) do
    choices[#choices + 1] = ('[%s] %s'):format(k.key, text.plain(k.action.title))
  end
  if focused then
    choices[#choices + 1] = '[q] later'
  end
  local answers = { '' } -- the answers' lines: an answer is never cut in two
  for _, choice in ipairs(choices) do
    local last = answers[#answers]
    if last == '' then
      answers[#answers] = choice
    elseif vim.fn.strdisplaywidth(last .. '   ' .. choice) > width then
      answers[#answers + 1] = choice
    else
      answers[#answers] = last .. '   ' .. choice
    end
  end
  return lines, answers
end

--- Where the float goes: inside the conversation window when it is shown in this tab (at
--- its bottom, above the prompt line: the code window stays visible), else the top-right
--- corner of the screen.
--- @return table position, integer width
function M.place()
  local ok, convbuf = pcall(require, 'harness.convbuf')
  local win = ok and convbuf.window()
  if win then
    local width = math.max(20, vim.api.nvim_win_get_width(win) - 2)
    local bottom = math.max(1, vim.api.nvim_win_get_height(win) - 1)
    return { relative = 'win', win = win, anchor = 'SW', row = bottom, col = 0 }, width
  end
  local width = math.min(72, math.max(30, vim.o.columns - 6))
  return { relative = 'editor', anchor = 'NE', row = 1, col = vim.o.columns }, width
end

return M
