--- harness.convopen: what a row of the conversation opens and restores — <CR> on a tool
--- row opens its whole result (the step of the trace, every result whole) or, for a call
--- that wrote files, the diff of the file; on a run's end line the run's changes; `R` on a
--- turn restores the files to how they were before it (harness.conversation.restore),
--- after listing the files it will put back.
local conversation = require('harness.conversation')
local notify = require('harness.notify')
local rpc = require('harness.rpc')

local M = {}

local WRITES = { edit_file = true, write_file = true, rename_symbol = true }

local function client()
  local c = conversation.current()
  local cl = c.client_id and vim.lsp.get_client_by_id(c.client_id)
  return cl or rpc.client()
end

local function written_file(cl, e)
  rpc.request(cl, 'harness.run.changes', { runId = e.run }, function(files)
    files = type(files) == 'table' and files or {}
    local target = vim.fs.normalize(tostring(e.target or ''))
    local pick = files[1]
    for _, f in ipairs(files) do
      if f.path == target or target:sub(-#f.path) == f.path then
        pick = f
      end
    end
    if not pick then
      notify.info(('run %d: the file is back as it was; nothing to diff'):format(e.run))
      return
    end
    require('harness.changes').show_diff(cl, pick)
  end)
end

--- Open what entry `e` stands for.
--- @param e harness.Entry
function M.open(e)
  local cl = client()
  if not cl or not e.run then
    return
  end
  if e.kind == 'tool' and WRITES[e.name] and e.status == 'ok' then
    written_file(cl, e)
  elseif e.kind == 'tool' and tonumber(e.step) then
    require('harness.trace').open_step(cl, e.run, e.step)
  elseif e.kind == 'end' then
    require('harness.changes').open(tostring(e.run))
  elseif e.kind == 'user' then
    notify.info('R on this turn restores the files to before it')
  end
end

local function turn_of(e)
  for i, t in ipairs(conversation.turns()) do
    if t == e then
      return i
    end
  end
end

local function files_from(files, first_run)
  local out = {}
  for _, f in ipairs(files) do
    for _, id in ipairs(f.runIds or {}) do
      if id >= first_run then
        out[#out + 1] = f.path
        break
      end
    end
  end
  return out
end

local function said(result)
  local parts = {}
  for _, f in ipairs(result.files or {}) do
    local why = type(f.reason) == 'string' and f.reason ~= '' and (' (' .. f.reason .. ')') or ''
    parts[#parts + 1] = ('%s %s%s'):format(f.path, f.action, why)
  end
  local head = result.restored and ('back to before turn %d'):format(result.turn)
    or ('not restored: turn %d'):format(result.turn)
  return head .. (parts[1] and (': ' .. table.concat(parts, ', ')) or '')
end

local function restore(cl, id, turn, force)
  local args = { conversationId = id, turn = turn, force = force or nil }
  rpc.request(cl, 'harness.conversation.restore', args, function(result)
    notify.long(said(result), result.restored and vim.log.levels.INFO or vim.log.levels.WARN)
    if not result.restored and not force then
      require('harness.commands').confirm(
        'Files changed since the agent wrote them. Overwrite them?',
        'Overwrite them',
        'Keep them',
        function()
          restore(cl, id, turn, true)
        end
      )
      return
    end
    require('harness.changes').load(cl, id)
  end)
end

--- Restore the conversation to before turn `e` (asks first, naming the files).
--- @param e harness.Entry a user entry
function M.restore(e)
  local c = conversation.current()
  local cl = client()
  local turn = turn_of(e)
  if not (cl and c.id and turn and e.run) then
    notify.info('no turn to restore here')
    return
  end
  rpc.request(cl, 'harness.run.changes', { conversationId = c.id }, function(files)
    local paths = files_from(type(files) == 'table' and files or {}, e.run)
    local what = paths[1] and ('puts back ' .. table.concat(paths, ', ')) or 'changes no file'
    local question = ('Restore to before turn %d? It %s.'):format(turn, what)
    require('harness.commands').confirm(question, 'Restore', 'Keep it', function()
      restore(cl, c.id, turn, false)
    end)
  end)
end

--- `/undo`: restore to before the last turn.
function M.restore_last()
  local turns = conversation.turns()
  if not turns[1] then
    notify.info('no turn to undo yet')
    return
  end
  M.restore(turns[#turns])
end

return M
