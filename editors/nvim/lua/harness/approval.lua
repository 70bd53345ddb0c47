--- harness.approval: a policy `ask` (Allow / Allow for this run / Deny) answered only on
--- purpose. The client declares `experimental.harness.approvals` (lsp/harness.lua), so the
--- server asks with `harness/approve {runId, step, callId, act, target, reason, command?,
--- diff?, filesWritten, options}` (docs/server.md) and is answered `{decision}`; a server
--- question of its own (`window/showMessageRequest`, e.g. a code action's) is asked here the
--- same way and answered with the chosen title.
---
--- An approval can arrive while you type. Neovim's default (vim.ui.select → inputlist())
--- would take your next keys as the answer: `x = 1⏎` typed in insert mode answered Deny and
--- lost the text, and `1⏎` would have allowed a command. Here the request opens a float
--- (harness.approvalview: in the conversation window, else the top-right corner) that does
--- NOT take focus (it is not focusable), the statusline and a message say an answer is
--- wanted, and the run waits. `:HarnessApprove` focuses the float (there `a`, `A`, `d`
--- answer, `q`/<Esc> go back, leaving it pending); `:HarnessApprove allow|run|deny` and the
--- conversation buffer's keys (harness.convkeys) answer it. Digits, <CR> and text typed on
--- the prompt line answer nothing. A request the run no longer needs is dropped.
local config = require('harness.config')
local notify = require('harness.notify')
local state = require('harness.state')
local view = require('harness.approvalview')

local M = {}

---@class harness.Approval
---@field id integer
---@field client_id integer
---@field method string the server request it answers
---@field run_id integer?
---@field step integer?
---@field call_id string? the tool call it approves (harness/approve)
---@field message string
---@field actions { title: string }[]
---@field keys { key: string, action: { title: string } }[]
---@field resume fun(answer: table)

local queue = {} ---@type harness.Approval[]
local ui = { win = nil, buf = nil, focused = false, prev = nil, reopening = false } ---@type table
local last_id = 0

local FIXED_KEYS = { ['Allow'] = 'a', ['Allow for this run'] = 'A', ['Deny'] = 'd' }
local RESERVED = { q = true }

--- A letter for each action: the fixed ones for the server's titles, else the first free
--- letter of the title (never a digit, never <CR>).
local function keys_for(actions)
  local used, out = vim.deepcopy(RESERVED), {}
  for _, action in ipairs(actions) do
    local key = FIXED_KEYS[action.title]
    if not key or used[key] then
      key = nil
      for ch in (action.title:lower() .. 'bcefghijklmnostuvwxyz'):gmatch('%l') do
        if not used[ch] then
          key = ch
          break
        end
      end
    end
    if key then
      used[key] = true
      out[#out + 1] = { key = key, action = action }
    end
  end
  return out
end

local function counts()
  local per = {}
  for _, item in ipairs(queue) do
    per[item.client_id] = (per[item.client_id] or 0) + 1
  end
  for _, client in ipairs(vim.lsp.get_clients({ name = 'harness' })) do
    state.approvals(client.id, per[client.id] or 0)
  end
end

local function close()
  local win = ui.win
  ui.win = nil
  if win and vim.api.nvim_win_is_valid(win) then
    if not pcall(vim.api.nvim_win_close, win, true) then
      -- not now (textlock: an expression or mapping is being evaluated): once it is over,
      -- never leaving an answered approval's float behind
      vim.schedule(function()
        if vim.api.nvim_win_is_valid(win) and win ~= ui.win then
          pcall(vim.api.nvim_win_close, win, true)
        end
      end)
    end
  end
end

local render -- forward

local function set_keys(buf, item)
  for _, lhs in ipairs({ 'q', '<Esc>' }) do
    vim.keymap.set('n', lhs, M.unfocus, { buffer = buf, nowait = true, desc = 'harness: later' })
  end
  for _, k in ipairs(item.keys) do
    vim.keymap.set('n', k.key, function()
      M.answer(item, k.action)
    end, { buffer = buf, nowait = true, desc = 'harness: ' .. k.action.title })
  end
end

local function open(item)
  local pos, width = view.place()
  local lines, answers = view.lines(item, width, ui.focused)
  local max_height = pos.relative == 'win' and math.max(3, pos.row - 2) or (vim.o.lines - 4)
  if #lines + #answers > max_height then -- the answers stay in view; the rest in :Harness
    lines = vim.list_slice(lines, 1, math.max(0, max_height - #answers - 1))
    lines[#lines + 1] = '… (the whole question: :Harness)'
  end
  vim.list_extend(lines, answers)
  if not (ui.buf and vim.api.nvim_buf_is_valid(ui.buf)) then
    ui.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[ui.buf].bufhidden = 'hide'
    vim.api.nvim_create_autocmd('WinLeave', {
      buffer = ui.buf,
      callback = function()
        if ui.focused and not ui.reopening then
          vim.schedule(M.unfocus)
        end
      end,
    })
  end
  vim.bo[ui.buf].modifiable = true
  vim.api.nvim_buf_set_lines(ui.buf, 0, -1, false, lines)
  vim.bo[ui.buf].modifiable = false
  set_keys(ui.buf, item)
  local more = #queue > 1 and (' (1 of %d)'):format(#queue) or ''
  local win_config = vim.tbl_extend('force', pos, {
    width = width,
    height = math.min(#lines, max_height),
    style = 'minimal',
    border = config.options.border,
    title = ' harness: approval needed' .. more .. ' ',
    footer = ui.focused and ' a/A/d answer · q later ' or ' :HarnessApprove to answer ',
    footer_pos = 'right',
    focusable = ui.focused,
    zindex = 200,
  })
  if not config.options.border or config.options.border == 'none' then
    win_config.title, win_config.footer, win_config.footer_pos = nil, nil, nil
    win_config.border = 'none'
  end
  ui.reopening = true -- focusable cannot be changed in place on every version: reopen
  close()
  ui.reopening = false
  ui.win = vim.api.nvim_open_win(ui.buf, ui.focused, win_config)
  vim.wo[ui.win].wrap = true
  if ui.focused then
    vim.cmd('stopinsert')
  end
end

render = function()
  local item = queue[1]
  if not item then
    ui.focused = false
    close()
    return
  end
  local ok = pcall(open, item)
  if not ok then -- e.g. in the command-line window, where windows cannot open: try later
    vim.defer_fn(render, 200)
  end
end

local function remove(item)
  for i, it in ipairs(queue) do
    if it == item then
      table.remove(queue, i)
      return true
    end
  end
  return false
end

--- Queue `item` (built from a server request) and yield until it is answered or dropped;
--- `answer_of` turns the chosen `{ title }` (or vim.NIL: dropped) into the reply.
local function wait_for(co, item, answer_of)
  last_id = last_id + 1
  item.id = last_id
  item.keys = keys_for(item.actions)
  item.resume = function(answer)
    vim.schedule(function()
      coroutine.resume(co, answer_of(answer))
    end)
  end
  queue[#queue + 1] = item
  counts()
  render()
  notify.warn(notify.one_line(':HarnessApprove to answer · ' .. item.message))
  return coroutine.yield()
end

--- The `window/showMessageRequest` handler of the harness client (runs in the coroutine
--- Neovim gives server requests, and yields until the request is answered or dropped).
function M.ask(_, params, ctx)
  local co, is_main = coroutine.running()
  if not co or is_main or not next(params.actions or {}) then
    notify.warn(params.message or '')
    return vim.NIL
  end
  local item = {
    client_id = ctx.client_id,
    method = 'window/showMessageRequest',
    message = params.message or '',
    actions = params.actions,
  }
  return wait_for(co, item, function(answer)
    return answer
  end)
end

local TITLES = { allow = 'Allow', allowRun = 'Allow for this run', deny = 'Deny' }

--- The `harness/approve` handler: the question drawn from the request's fields, the
--- answer `{ decision }` (dropped: null, which the server takes as no answer yet).
function M.approve(_, params, ctx)
  local co, is_main = coroutine.running()
  local actions, decisions = {}, {}
  for _, option in ipairs(params.options or {}) do
    if TITLES[option] then
      actions[#actions + 1] = { title = TITLES[option] }
      decisions[TITLES[option]] = option
    end
  end
  if not co or is_main or not actions[1] then
    return vim.NIL
  end
  local item = {
    client_id = ctx.client_id,
    method = 'harness/approve',
    run_id = params.runId,
    step = params.step,
    call_id = params.callId,
    message = view.question(params),
    actions = actions,
  }
  return wait_for(co, item, function(answer)
    local decision = type(answer) == 'table' and decisions[answer.title]
    return decision and { decision = decision } or vim.NIL
  end)
end

--- Unfocus the float and go back to the window the user was in before it.
local function leave_float()
  ui.focused = false
  local prev = ui.prev
  render()
  if prev and vim.api.nvim_win_is_valid(prev) then
    vim.api.nvim_set_current_win(prev)
  end
end

--- Answer an approval (from the focused float).
function M.answer(item, action)
  if not remove(item) then
    return
  end
  if ui.focused then
    leave_float()
  else
    render()
  end
  counts()
  item.resume({ title = action.title })
  local run = item.run_id and ('run %d: '):format(item.run_id) or ''
  notify.info(notify.one_line(run .. action.title))
end

--- Answer `item` with the action of `key` (the conversation buffer's a/A/d).
--- @param item harness.Approval
--- @param key string
function M.answer_key(item, key)
  for _, k in ipairs(item.keys) do
    if k.key == key then
      M.answer(item, k.action)
      return
    end
  end
end

local WORDS = { allow = 'Allow', run = 'Allow for this run', deny = 'Deny' }

--- Answer `item` with `word`: allow, run (allow for this run) or deny.
--- @param item harness.Approval
--- @param word string
--- @return boolean answered
function M.answer_word(item, word)
  local title = WORDS[word]
  for _, action in ipairs(item.actions) do
    if action.title == title then
      M.answer(item, action)
      return true
    end
  end
  notify.warn(('%s is not an answer to this approval'):format(tostring(word)))
  return false
end

--- `:HarnessApprove allow|run|deny`: answer the oldest approval waiting (nothing: focus it).
--- @param word string?
function M.command(word)
  word = vim.trim(word or '')
  if word == '' then
    M.focus()
  elseif not WORDS[word] then
    notify.error(':HarnessApprove takes allow, run, deny or nothing')
  elseif not queue[1] then
    notify.info('no approval is waiting')
  else
    M.answer_word(queue[1], word)
  end
end

--- The pending approvals themselves (oldest first), for the conversation buffer.
--- @return harness.Approval[]
function M.items()
  return queue
end

--- `:HarnessApprove`: focus the float of the oldest pending approval.
function M.focus()
  if not queue[1] then
    notify.info('no approval is waiting')
    return
  end
  local current = vim.api.nvim_get_current_win()
  if current ~= ui.win then
    ui.prev = current
  end
  ui.focused = true
  render()
end

--- Leave the float; the approval stays pending.
function M.unfocus()
  if not ui.focused then
    return
  end
  leave_float()
end

--- Drop the pending approvals `pred` selects (their run ended or no longer waits).
--- @param pred fun(item: harness.Approval): boolean
function M.drop(pred)
  local dropped = {}
  for _, item in ipairs(queue) do
    if pred(item) then
      dropped[#dropped + 1] = item
    end
  end
  for _, item in ipairs(dropped) do
    remove(item)
    item.resume(vim.NIL)
  end
  if #dropped > 0 then
    if ui.focused and not queue[1] and ui.prev and vim.api.nvim_win_is_valid(ui.prev) then
      vim.api.nvim_set_current_win(ui.prev)
    end
    render()
    counts()
  end
end

--- The server withdrew a request (`$/cancelRequest`: it carries the server's request id,
--- which Neovim does not hand to handlers): keep only the approvals harness.status still
--- shows as awaited. Approvals that arrive after the question was sent are kept.
function M.reconcile(client_id)
  local newest = last_id
  local client = vim.lsp.get_client_by_id(client_id)
  if not client or not queue[1] then
    return
  end
  local params = { command = 'harness.status', arguments = { vim.empty_dict() } }
  client:request('workspace/executeCommand', params, function(err, status)
    if err or type(status) ~= 'table' then
      return
    end
    local waiting = {}
    for _, run in ipairs(status.runs or {}) do
      if run.awaitingApproval then
        waiting[run.runId] = true
      end
    end
    M.drop(function(item)
      return item.client_id == client_id and item.id <= newest and not waiting[item.run_id]
    end)
  end)
end

--- The pending approvals (oldest first): { message, method, run_id, step, call_id,
--- client_id }.
function M.pending()
  return vim.tbl_map(function(item)
    return {
      message = item.message,
      method = item.method,
      run_id = item.run_id,
      step = item.step,
      call_id = item.call_id,
      client_id = item.client_id,
    }
  end, queue)
end

--- The approval float's window, if shown, and whether it has focus.
function M.window()
  return ui.win, ui.focused
end

function M.resize()
  if queue[1] then
    render()
  end
end

return M
