--- harness.notify: every message the plugin shows goes through vim.notify (so nvim-notify,
--- noice and fidget users see them their way), prefixed "harness: ", as plain text
--- (harness.text: control characters escaped, a newline shown as `\n`).
local text = require('harness.text')

local M = {}

local levels = vim.log.levels

local function send(message, level)
  vim.notify('harness: ' .. text.plain(message), level, { title = 'harness' })
end

--- Shown from anywhere, also from a fast event (a libuv callback).
--- @param message string
--- @param level integer?
function M.show(message, level)
  if vim.in_fast_event() then
    vim.schedule(function()
      send(message, level or levels.INFO)
    end)
  else
    send(message, level or levels.INFO)
  end
end

function M.info(message)
  M.show(message, levels.INFO)
end

function M.warn(message)
  M.show(message, levels.WARN)
end

function M.error(message)
  M.show(message, levels.ERROR)
end

local PREFIX = #'harness: '

--- The columns a message may take without making Neovim's message area wait for ENTER
--- (which would swallow the next key the user types), less the "harness: " prefix.
--- @return integer
function M.room()
  return math.max(20, vim.v.echospace - PREFIX)
end

--- One line of plain text that fits the message area, cut with … when needed (newlines
--- and other control characters are shown escaped, never folded away).
--- @param message string
--- @param room integer? columns available (default: M.room())
--- @return string
function M.one_line(message, room)
  local line = vim.trim(text.plain(message))
  room = room or M.room()
  if vim.fn.strdisplaywidth(line) <= room then
    return line
  end
  local cut = vim.fn.strcharpart(line, 0, room - 1)
  while vim.fn.strdisplaywidth(cut) > room - 1 do
    cut = vim.fn.strcharpart(cut, 0, vim.fn.strchars(cut) - 1)
  end
  return cut .. '…'
end

return M
