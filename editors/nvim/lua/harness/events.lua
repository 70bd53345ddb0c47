--- harness.events: the handlers of what the server sends on its own (SPEC §7) —
--- harness/budget, harness/runFinished, harness/didWrite, approvals and their withdrawal.
--- Progress ($/progress) needs nothing here: Neovim turns it into `LspProgress` events and
--- vim.lsp.status(), which fidget.nvim and statuslines read.
local approval = require('harness.approval')
local buffers = require('harness.buffers')
local notify = require('harness.notify')
local state = require('harness.state')
local statusline = require('harness.statusline')
local text = require('harness.text')

local M = {}

local GOOD = { success = true, finished = true }

--- Files by name, at most `most` of them, then how many more: "a.py, b.py +3".
local function files_text(files, most)
  local shown = {}
  for i = 1, math.min(#files, most) do
    shown[i] = vim.fn.fnamemodify(tostring(files[i]), ':t')
  end
  local more = #files > most and (' +%d'):format(#files - most) or ''
  return table.concat(shown, ', ') .. more
end

--- The end line of a run, one line: outcome, counts, files, steps, tokens, cost —
--- "run 7 finished · 1 denied · changed calc.py · 3 steps · 1.2k tokens · $0.01". The
--- answer is not in it: the conversation shows it once, above, as the model's words.
--- @param result table harness/runFinished
--- @return string
function M.end_line(result)
  local parts = { ('run %s %s'):format(tostring(result.runId), notify.outcome(result.outcome)) }
  for _, what in ipairs({ 'refused', 'denied', 'failed' }) do
    local n = tonumber(result[what])
    if n and n > 0 then
      parts[#parts + 1] = ('%d %s'):format(n, what)
    end
  end
  local files = result.filesChanged
  if type(files) == 'table' and #files > 0 then
    parts[#parts + 1] = 'changed ' .. files_text(files, 3)
  end
  parts[#parts + 1] = text.count(result.steps, 'step')
  parts[#parts + 1] = statusline.tokens(result.spentTokens) .. ' tokens'
  local cost = tonumber(result.costUsd)
  if cost then
    parts[#parts + 1] = ('$%.2f'):format(cost)
  end
  return table.concat(parts, ' · ')
end

--- The end line and, after it, the answer on one line (for the message area).
--- @param result table harness/runFinished
--- @return string
function M.summary(result)
  local line = M.end_line(result)
  local answer = result.summary
  if type(answer) == 'string' and vim.trim(answer) ~= '' then
    line = line .. ' — ' .. vim.trim(answer):gsub('%s+', ' ')
  end
  return line
end

--- The end of a run in one line of the message area: the end line first (so a cut takes
--- the answer's tail, never the counts), the answer after it when the conversation is not
--- on the screen, cut to fit.
--- @param result table harness/runFinished
--- @return string
function M.announcement(result)
  local shown = require('harness.convbuf').window() ~= nil
  local whole = shown and M.end_line(result) or M.summary(result)
  local line = notify.one_line(whole)
  if line ~= whole then -- cut: say where the whole of it is
    local tail = ' (:Harness)'
    line = notify.one_line(whole, math.max(20, notify.room() - #tail)) .. tail
  end
  return line
end

function M.budget(_, params, ctx)
  if type(params) == 'table' then
    state.budget(ctx.client_id, params)
    require('harness.conversation').budget(params)
  end
end

--- `harness/runEvent` (SPEC §11): drawn in the conversation buffer.
function M.run_event(_, params, ctx)
  require('harness.conversation').event(ctx.client_id, params)
end

function M.run_finished(_, result, ctx)
  if type(result) ~= 'table' then
    return
  end
  state.finished(ctx.client_id, result)
  approval.drop(function(item)
    return item.client_id == ctx.client_id and item.run_id == result.runId
  end)
  require('harness.conversation').finished(result)
  local c = require('harness.conversation').current()
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client and c.id and c.runs[result.runId] then -- the signs of the hunks to review
    require('harness.review').refresh(client, { conversationId = c.id })
  end
  local level = GOOD[result.outcome] and vim.log.levels.INFO or vim.log.levels.WARN
  notify.show(M.announcement(result), level)
  M.refresh(ctx.client_id)
end

function M.did_write(_, params)
  if type(params) == 'table' and type(params.uri) == 'string' then
    buffers.did_write(params.uri)
  end
end

local MESSAGE_LEVELS = {
  vim.log.levels.ERROR,
  vim.log.levels.WARN,
  vim.log.levels.INFO,
  vim.log.levels.DEBUG,
}

--- `window/showMessage`: the server's message, as plain text (it may quote a repository's
--- file names or the model's words).
function M.show_message(_, params)
  if type(params) ~= 'table' then
    return vim.NIL
  end
  local message = tostring(params.message or '')
  if vim.startswith(message, 'harness: ') then
    message = message:sub(#'harness: ' + 1)
  end
  message = notify.own_words(message, params.data)
  notify.long(message, MESSAGE_LEVELS[params.type] or vim.log.levels.INFO)
  return vim.NIL
end

function M.cancel_request(_, _, ctx)
  approval.reconcile(ctx.client_id)
end

--- Ask the server for its status (notes count, a run in progress) and keep it.
--- @param client_id integer
function M.refresh(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  if not client then
    return
  end
  local root = client.root_dir
  local args = root and { workspaceFolder = root } or vim.empty_dict()
  local params = { command = 'harness.status', arguments = { args } }
  client:request('workspace/executeCommand', params, function(err, status)
    if not err and type(status) == 'table' then
      state.status(client_id, status)
    end
  end)
end

--- The handlers table of the LSP config (lsp/harness.lua).
function M.handlers()
  return {
    ['harness/budget'] = M.budget,
    ['harness/runFinished'] = M.run_finished,
    ['harness/runEvent'] = M.run_event,
    ['harness/didWrite'] = M.did_write,
    ['window/showMessage'] = M.show_message,
    ['window/showMessageRequest'] = approval.ask,
    ['harness/approve'] = approval.approve,
    ['$/cancelRequest'] = M.cancel_request,
  }
end

return M
