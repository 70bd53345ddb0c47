--- harness.convwin: where the conversation buffer is shown (`layout`, `width`, `height` of
--- setup(), `:help harness-layout`) and how its window looks — wrapped lines indented
--- (`breakindent`), results folded under their rows, the model's Markdown drawn by
--- treesitter's markdown and markdown_inline parsers with `conceallevel` where Neovim has
--- them (plain text otherwise: the text itself is harness.text's plain text either way).
---
--- The default fits a terminal of 80 columns: a vertical split when the code window keeps
--- at least 80 columns beside a conversation of 36, else a horizontal split below.
local config = require('harness.config')

local M = {}

local CODE, MIN_WIDTH, MAX_WIDTH = 80, 36, 80

--- `n` as columns/lines of `whole`: a fraction (0 < n < 1) or a count; nil: nil.
local function size(n, whole)
  if type(n) ~= 'number' then
    return nil
  end
  return math.max(1, n < 1 and math.floor(whole * n) or math.floor(n))
end

--- The layout in effect: the option, else the one that fits the screen.
--- @return 'vertical'|'horizontal'|'float'|'tab'
function M.layout()
  local chosen = config.options.layout
  if chosen then
    return chosen
  end
  return vim.o.columns >= CODE + 1 + MIN_WIDTH and 'vertical' or 'horizontal'
end

--- The width of a vertical split: the option, else what the code window leaves over 80.
--- @return integer
function M.width()
  local given = size(config.options.width, vim.o.columns)
  if given then
    return given
  end
  local spare = vim.o.columns - CODE - 1
  if spare >= MIN_WIDTH then
    return math.min(MAX_WIDTH, spare)
  end
  return math.max(MIN_WIDTH, math.floor(vim.o.columns * 0.4))
end

--- The height of a horizontal split: the option, else 40% of the lines (at least 8).
--- @return integer
function M.height()
  return size(config.options.height, vim.o.lines) or math.max(8, math.floor(vim.o.lines * 0.4))
end

local function markdown(buf)
  if vim.b[buf].harness_markdown ~= nil then
    return vim.b[buf].harness_markdown
  end
  local ok = pcall(vim.treesitter.language.add, 'markdown')
    and pcall(vim.treesitter.language.add, 'markdown_inline')
    and pcall(vim.treesitter.start, buf, 'markdown')
  vim.b[buf].harness_markdown = ok
  return ok
end

--- The window options of the conversation.
--- @param win integer
--- @param buf integer
function M.style(win, buf)
  local wo = vim.wo[win][0]
  wo.wrap, wo.linebreak, wo.number, wo.relativenumber = true, true, false, false
  wo.breakindent, wo.breakindentopt = true, 'shift:2'
  wo.signcolumn = 'no'
  wo.foldmethod = 'manual' -- harness.convbuf makes the folds
  wo.foldlevel, wo.foldminlines = 0, 0
  wo.foldenable = true
  wo.foldtext = ''
  wo.fillchars = 'fold: ,eob: '
  wo.conceallevel = markdown(buf) and 2 or 0
  wo.concealcursor = ''
end

local function float_config()
  local width = math.min(100, vim.o.columns - 4)
  local height = math.max(8, math.floor(vim.o.lines * 0.7))
  return {
    relative = 'editor',
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = size(config.options.width, vim.o.columns) or width,
    height = size(config.options.height, vim.o.lines) or height,
    border = config.options.border,
    title = ' harness ',
  }
end

local function open_win(buf)
  local layout = M.layout()
  if layout == 'float' then
    return vim.api.nvim_open_win(buf, true, float_config())
  elseif layout == 'tab' then
    vim.cmd.tabnew()
    local scratch = vim.api.nvim_get_current_buf()
    vim.api.nvim_win_set_buf(0, buf)
    if scratch ~= buf and vim.api.nvim_buf_is_valid(scratch) then
      pcall(vim.api.nvim_buf_delete, scratch, { force = true })
    end
    return vim.api.nvim_get_current_win()
  elseif layout == 'horizontal' then
    return vim.api.nvim_open_win(buf, true, { split = 'below', height = M.height(), win = -1 })
  end
  return vim.api.nvim_open_win(buf, true, { split = 'right', width = M.width(), win = -1 })
end

--- Show `buf` (unless `win` shows it already); `focus`: go there.
--- @param buf integer
--- @param win integer?
--- @param focus boolean?
--- @return integer
function M.open(buf, win, focus)
  if win then
    if focus then
      vim.api.nvim_set_current_win(win)
    end
    return win
  end
  local current = vim.api.nvim_get_current_win()
  local tab = vim.api.nvim_get_current_tabpage()
  win = open_win(buf)
  M.style(win, buf)
  require('harness.convbuf').render()
  vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  if not focus and vim.api.nvim_get_current_tabpage() == tab then
    vim.api.nvim_set_current_win(current)
  end
  return win
end

--- Close `win`, or open the conversation when it is not shown (or is the only window).
function M.toggle(buf, win)
  local wins = #vim.api.nvim_tabpage_list_wins(0)
  if win and (wins > 1 or vim.api.nvim_win_get_config(win).relative ~= '') then
    vim.api.nvim_win_close(win, false)
    return
  end
  if win and M.layout() == 'tab' and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd.tabclose()
    return
  end
  M.open(buf, win, true)
end

return M
