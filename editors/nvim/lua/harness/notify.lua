--- harness.notify: every message the plugin shows goes through vim.notify (so nvim-notify,
--- noice and fidget users see them their way), prefixed "harness: ", as plain text
--- (harness.text: control characters escaped, a newline shown as `\n`).
local text = require('harness.text')

local M = {}

local levels = vim.log.levels

-- Two messages in one tick stack up in the message area, which then waits for ENTER (and
-- swallows the next key): the screen is redrawn first, so each replaces the one before.
local function send(message, level)
  if #vim.api.nvim_list_uis() > 0 then
    pcall(vim.cmd.redraw)
  end
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

--- A message of any length without a wait for ENTER: one line in the message area; when
--- cut, the whole of it goes to the conversation buffer and the line says so (` (:Harness)`).
--- @param message string
--- @param level integer?
function M.long(message, level)
  local line = M.one_line(message)
  if line ~= vim.trim(text.plain(message)) then
    local function keep()
      require('harness.conversation').notice(message)
    end
    if vim.in_fast_event() then
      vim.schedule(keep)
    else
      keep()
    end
    line = M.one_line(message, math.max(20, M.room() - #' (:Harness)')) .. ' (:Harness)'
  end
  M.show(line, level)
end

-- Setting names as the server writes them (VS Code's `harness.provider.baseUrl`) and as
-- this plugin's users set them: `settings.provider.baseUrl` of setup().
local SETTING_ROOTS = {
  'provider',
  'storePath',
  'tokenBudget',
  'maxSteps',
  'contextBudget',
  'contextWire',
  'policy',
  'trusted',
  'prices',
  'verify',
}

--- A server message in this plugin's words: VS Code's setting names become setup()'s.
--- @param message string
--- @return string
function M.own_words(message)
  message = message:gsub("the editor's settings %(harness%.([%w%.]+)%)", 'setup() (settings.%1)')
  for _, root in ipairs(SETTING_ROOTS) do
    message = message:gsub('harness%.(' .. root .. '[%w%.]*)', 'settings.%1 in setup()')
  end
  message = message:gsub('ended (%l[%l_]*)', function(outcome)
    return M.OUTCOMES[outcome] -- nil (kept as it is) for a word that is no outcome
  end)
  return message
end

--- How a run ended, in words (never `provider_error`).
M.OUTCOMES = {
  success = 'succeeded',
  finished = 'finished',
  step_cap_reached = 'stopped at the step cap',
  budget_exhausted = 'ran out of token budget',
  cancelled = 'cancelled',
  context_overflow = "overflowed the model's context",
  provider_error = 'failed: the model provider returned an error',
  verification_failed = 'failed verification',
  interrupted = 'was interrupted',
  store_error = 'failed: the store could not be written',
}

--- @param outcome any
--- @return string
function M.outcome(outcome)
  local word = M.OUTCOMES[outcome]
  return word or ('ended: ' .. tostring(outcome or '?'):gsub('_', ' '))
end

return M
