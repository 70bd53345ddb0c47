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

local protocol = require('harness.protocol')

--- `old` replaced by `new` wherever it occurs in `s`, as plain text (no pattern).
local function replace(s, old, new)
  local out, from = {}, 1
  while true do
    local i, j = s:find(old, from, true)
    if not i then
      break
    end
    out[#out + 1] = s:sub(from, i - 1) .. new
    from = j + 1
  end
  return table.concat(out) .. s:sub(from)
end

--- A setting as this plugin's users set it: `settings.provider.baseUrl in setup()`.
--- @param key string
--- @return string
function M.setting(key)
  return ('settings.%s in setup()'):format(key)
end

--- A server message in this plugin's words, from the facts of its `data` (docs/server.md,
--- Errors): a bad setting and a refusal are said from `{setting, problem, refusesRuns}`, a
--- run's end from `{runId, outcome, detail|error}`; the setting the server's text names
--- ("the setting KEY") becomes setup()'s. The sentence itself is never parsed.
--- @param message string
--- @param data table? the `data` of the error or message
--- @return string
function M.own_words(message, data)
  if type(data) ~= 'table' then
    return message
  end
  local key = type(data.setting) == 'string' and data.setting or nil
  if data.kind == 'runEnded' then
    return ('run %s %s: %s'):format(
      tostring(data.runId),
      M.outcome(data.outcome),
      tostring(data.detail or data.error or '')
    )
  end
  local hosted = "so that none goes to the provider's hosted API instead"
  if key and data.kind == 'invalidSetting' then
    local after = data.refusesRuns and ('runs are refused until it is fixed, ' .. hosted)
      or 'using the default'
    return ('invalid setting %s: %s; %s'):format(M.setting(key), tostring(data.problem), after)
  end
  if key and data.refusesRuns and data.problem then
    local fix =
      'the setting %s: %s; fix it in setup() (settings.%s) — until then no run starts, %s'
    return fix:format(M.setting(key), tostring(data.problem), key, hosted)
  end
  if key then
    return replace(message, 'the setting ' .. key, M.setting(key))
  end
  return message
end

--- How a run ended, in words (never `provider_error`): the declaration's (server/protocol).
M.OUTCOMES = protocol.outcomes

--- @param outcome any
--- @return string
function M.outcome(outcome)
  local word = M.OUTCOMES[outcome]
  return word or ('ended: ' .. tostring(outcome or '?'):gsub('_', ' '))
end

return M
