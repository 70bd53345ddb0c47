--- harness.conversation: the conversation the buffer of `:Harness` draws (SPEC §11) — the
--- runs a user started one after another, kept as entries built from `harness/runEvent`
--- (user turns, the model's words as they stream, tool calls and their results, approvals,
--- each run's end). A server without run events still gives the turns, the approvals and
--- each run's end (from harness.run, the approval requests and harness/runFinished).
--- harness.convbuf draws it; nothing here touches a buffer.
local M = {}

---@class harness.Entry
---@field kind 'user'|'words'|'tool'|'approval'|'end'|'notice'
---@field run integer?
---@field step integer?
---@field text string?
---@field status string?
---@field why string?
---@field summary string?

---@class harness.Conversation
---@field id integer? the conversationId (its first run's id)
---@field client_id integer?
---@field entries harness.Entry[]
---@field budget table? the last budget of its last run
---@field runs table<integer, { users: boolean, ended: boolean, seq: integer, evented: boolean }>
---@field calls table<string, harness.Entry>
---@field last_goal string?

local conv ---@type harness.Conversation
local parked = {} ---@type table<integer, table[]> events of conversations not (yet) shown

local function reset(id, client_id)
  conv = { id = id, client_id = client_id, entries = {}, runs = {}, calls = {} }
end
reset(nil, nil)

local function changed()
  local ok, buf = pcall(require, 'harness.convbuf')
  if ok then
    buf.schedule_render()
  end
end

local function run_of(run_id)
  local r = conv.runs[run_id]
  if not r then
    r = { seq = -1 }
    conv.runs[run_id] = r
  end
  return r
end

local function add(entry)
  conv.entries[#conv.entries + 1] = entry
  return entry
end

--- The conversation shown (read-only use).
--- @return harness.Conversation
function M.current()
  return conv
end

local function range_text(item)
  local path = vim.fn.fnamemodify(vim.uri_to_fname(item.uri), ':~:.')
  local r = item.range
  if type(r) ~= 'table' then
    return path
  end
  return ('%s:%d-%d'):format(path, r.start.line + 1, r['end'].line + 1)
end

local function user_turn(run_id, goal, context)
  local r = run_of(run_id)
  if r.users then
    return
  end
  r.users = true
  for _, e in ipairs(conv.entries) do -- drawn at once on <CR>: now it has its run
    if e.kind == 'user' and e.pending and e.text == goal then
      e.pending, e.run = nil, run_id
      return
    end
  end
  local attached = {}
  for _, item in ipairs(context or {}) do
    attached[#attached + 1] = range_text(item)
  end
  add({ kind = 'user', run = run_id, text = goal, attached = attached })
end

local function has_words(run_id)
  for _, e in ipairs(conv.entries) do
    if e.kind == 'words' and e.run == run_id then
      return true
    end
  end
  return false
end

--- The run's end: its answer once, as the model's words (drawn from the `text` events, or
--- from the result's summary when there were none), then the one end line.
local function ended(run_id, result)
  local r = run_of(run_id)
  if r.ended then
    return
  end
  r.ended = true
  local answer = result.summary
  if type(answer) == 'string' and answer ~= '' and not has_words(run_id) then
    add({ kind = 'words', run = run_id, text = answer })
  end
  add({ kind = 'end', run = run_id, text = require('harness.events').end_line(result) })
end

local on = {}

function on.user(ev)
  if ev.steer == true then
    add({ kind = 'user', run = ev.runId, text = ev.text, steer = true })
    return
  end
  user_turn(ev.runId, ev.text)
  conv.runs[ev.runId].mode = ev.mode ~= vim.NIL and ev.mode or nil
  conv.runs[ev.runId].rewound = ev.rewound == true or nil
end

function on.text(ev)
  local last = conv.entries[#conv.entries]
  if last and last.kind == 'words' and last.run == ev.runId and last.step == ev.step then
    last.text = last.text .. tostring(ev.delta or '')
  else
    add({ kind = 'words', run = ev.runId, step = ev.step, text = tostring(ev.delta or '') })
  end
end

function on.toolCall(ev)
  local target = ev.target ~= vim.NIL and ev.target or ''
  local entry = add({
    kind = 'tool',
    run = ev.runId,
    step = ev.step,
    name = ev.name,
    target = tostring(target),
    text = ev.name .. ' ' .. tostring(target),
  })
  entry.status = 'waiting'
  conv.calls[tostring(ev.callId)] = entry
end

function on.approval(ev)
  local call = conv.calls[tostring(ev.callId)]
  if ev.decision ~= nil and ev.decision ~= vim.NIL then
    if call then
      call.decision = ev.decision
    end
    return
  end
  if call then
    call.asked = true
  end
end

function on.toolResult(ev)
  local call = conv.calls[tostring(ev.callId)]
  if not call then
    call = add({ kind = 'tool', run = ev.runId, text = tostring(ev.callId) })
  end
  call.status = ev.status
  call.why = ev.why ~= vim.NIL and ev.why or nil
  call.summary = ev.summary ~= vim.NIL and ev.summary or nil
  call.detail = ev.detail ~= vim.NIL and ev.detail or nil
end

function on.budget(ev)
  conv.budget = ev
end

function on.finish(ev)
  ended(ev.runId, ev)
end
on['end'] = on.finish

local function apply(ev)
  local r = run_of(ev.runId)
  if type(ev.seq) == 'number' then
    if ev.seq <= r.seq then
      return -- seen already (history and the live stream overlap)
    end
    r.seq = ev.seq
  end
  r.evented = true
  local fn = on[ev.kind]
  if fn then
    fn(ev)
  end
end

--- A `harness/runEvent` notification (or an event of harness.run.events).
--- @param client_id integer
--- @param ev table
function M.event(client_id, ev)
  if type(ev) ~= 'table' or type(ev.runId) ~= 'number' then
    return
  end
  local id = tonumber(ev.conversationId) or ev.runId
  if conv.id ~= id then
    if conv.id ~= nil then
      parked[id] = parked[id] or {}
      table.insert(parked[id], ev)
      return
    end
    reset(id, client_id)
  end
  apply(ev)
  changed()
end

--- A run this Neovim started: `result` is harness.run's answer.
--- @param client_id integer
--- @param result table { runId, conversationId? }
--- @param goal string
--- @param context table[]?
function M.started(client_id, result, goal, context)
  local id = tonumber(result.conversationId) or result.runId
  if conv.id == nil then -- a new conversation: what is drawn already (the turn) stays
    conv.id, conv.client_id = id, client_id
  elseif conv.id ~= id then
    reset(id, client_id)
  end
  conv.last_goal = goal
  user_turn(result.runId, goal, context)
  for _, ev in ipairs(parked[id] or {}) do
    apply(ev)
  end
  parked[id] = nil
  changed()
end

--- The user's turn drawn at once, before the server has started its run (a follow-up of
--- the conversation shown, or the first turn of a new one); nil for another conversation.
--- @param conversation_id integer?
--- @param goal string
--- @param context table[]?
--- @return harness.Entry?
function M.pending(conversation_id, goal, context)
  if conversation_id ~= conv.id then
    return nil
  end
  local attached = {}
  for _, item in ipairs(context or {}) do
    attached[#attached + 1] = range_text(item)
  end
  local e = add({ kind = 'user', text = goal, attached = attached, pending = true })
  changed()
  return e
end

--- The server refused the run: its turn, drawn at once, goes.
--- @param e harness.Entry?
function M.drop_pending(e)
  for i, it in ipairs(conv.entries) do
    if it == e and it.pending then
      table.remove(conv.entries, i)
      changed()
      return
    end
  end
end

--- harness/budget: the header's figures (a server without run events).
function M.budget(params)
  if conv.id and type(params) == 'table' and conv.runs[params.runId] then
    conv.budget = params
    changed()
  end
end

--- harness/runFinished: the run's end, whole (once, whichever of it and the `end` event
--- comes first).
function M.finished(result)
  if conv.runs[result.runId] then
    ended(result.runId, result)
    changed()
  end
end

--- The run of the conversation still going (started, not ended), if any.
--- @return integer?
function M.active_run()
  local newest
  for run_id, r in pairs(conv.runs) do
    if r.users and not r.ended and (not newest or run_id > newest) then
      newest = run_id
    end
  end
  return newest
end

--- The turns of the conversation: its user entries (not the words said while a run
--- worked), in order; a turn's number is its place.
--- @return harness.Entry[]
function M.turns()
  local out = {}
  for _, e in ipairs(conv.entries) do
    if e.kind == 'user' and not e.steer then
      out[#out + 1] = e
    end
  end
  return out
end

--- A server message too long for one line: whole, in the conversation.
--- @param message string
function M.notice(message)
  add({ kind = 'notice', text = message })
  changed()
end

--- The conversation `id`, drawn again from the store's events (history).
--- @param client_id integer
--- @param id integer
--- @param events table[]
function M.load(client_id, id, events)
  reset(id, client_id)
  parked[id] = nil
  for _, ev in ipairs(events) do
    if type(ev) == 'table' and type(ev.runId) == 'number' then
      apply(ev)
    end
  end
  changed()
end

--- Start a new conversation: the next goal sent starts one.
function M.new()
  reset(nil, nil)
  changed()
end

return M
