--- harness.trace: :HarnessTrace [run] — scratch buffers of the runs, of one run's steps
--- (request tokens against the ceiling, cached share, carried / stubbed / re-read,
--- refused / failed, the tool calls), and of one step in full (the prompt as sent and the
--- unelided results). `<CR>` goes down a level, `<BS>` back up, `q` closes.
local notify = require('harness.notify')
local rpc = require('harness.rpc')
local statusline = require('harness.statusline')
local text = require('harness.text')

local M = {}

local tokens = statusline.tokens

local function value(v)
  return v ~= nil and v ~= vim.NIL
end

local function count(v)
  if type(v) == 'number' then
    return tostring(v)
  elseif type(v) == 'table' then
    return tostring(#v)
  end
  return '–'
end

local function pad(content, width)
  local cell = tostring(content)
  return cell .. string.rep(' ', math.max(0, width - vim.fn.strdisplaywidth(cell)))
end

local function bar(part, whole, width)
  if type(part) ~= 'number' or type(whole) ~= 'number' or whole <= 0 then
    return string.rep(' ', width)
  end
  local filled = math.min(width, math.floor(part / whole * width + 0.5))
  return string.rep('█', filled) .. string.rep('·', width - filled)
end

--- The cached share of a step's prompt ("62%"), or "–" when the provider said nothing.
function M.cached_share(step)
  local cached, reported = step.cachedPromptTokens, step.reportedPromptTokens
  if type(cached) ~= 'number' or type(reported) ~= 'number' or reported <= 0 then
    return '–'
  end
  return ('%d%%'):format(math.floor(cached / reported * 100 + 0.5))
end

local STEP_HEADER = table.concat({
  pad('step', 5),
  pad('request/ceiling', 28),
  pad('reported', 9),
  pad('cached', 7),
  pad('carried', 8),
  pad('stubbed', 8),
  pad('reread', 7),
  pad('refused', 8),
  pad('failed', 7),
  'calls',
}, '')

--- One row of a run's step table.
function M.step_row(step)
  local calls = {}
  for _, call in ipairs(step.toolCalls or {}) do
    calls[#calls + 1] = call.name
  end
  local request = ('%s/%s'):format(tokens(step.estTokens), tokens(step.contextCeiling))
  return table.concat({
    pad(step.step, 5),
    pad(request, 13) .. bar(step.estTokens, step.contextCeiling, 12) .. '   ',
    pad(value(step.reportedPromptTokens) and tokens(step.reportedPromptTokens) or '–', 9),
    pad(M.cached_share(step), 7),
    pad(count(step.carried), 8),
    pad(count(step.stubbed), 8),
    pad(count(step.reread), 7),
    pad(count(step.refused), 8),
    pad(count(step.failed), 7),
    calls[1] and table.concat(calls, ', ')
      or (value(step.said) and notify.one_line('“' .. step.said .. '”', 60))
      or tostring(step.decision or ''),
  }, '')
end

local RUNS_HEADER = table.concat({
  pad('run', 6),
  pad('outcome', 19),
  pad('steps', 6),
  pad('tokens', 8),
  pad('started', 21),
  'goal',
}, '')

function M.run_row(run)
  return table.concat({
    pad(run.runId, 6),
    pad(value(run.outcome) and run.outcome or 'running', 19),
    pad(run.steps or 0, 6),
    pad(tokens(run.spentTokens), 8),
    pad(value(run.startedAt) and run.startedAt:sub(1, 19) or '', 21),
    notify.one_line(run.goal or '', 80),
  }, '')
end

-- The window the trace views share, and what each line of the current view opens.
local win = nil

local function named(name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf) == name then
      return buf
    end
  end
  return nil
end

local function show(name, lines, targets, opts)
  local buf = vim.api.nvim_create_buf(false, true)
  -- Plain text only: the model's words and the tool results are never rendered (a Markdown
  -- link would hide its target).
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.tbl_map(text.plain, lines))
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  if not (win and vim.api.nvim_win_is_valid(win)) then
    vim.cmd('botright 16split')
    win = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_win_set_buf(win, buf) -- the view it replaces is wiped ('bufhidden')
  vim.api.nvim_set_current_win(win)
  local old = named(name)
  if old then -- the same view shown elsewhere (another tab): replaced
    pcall(vim.api.nvim_buf_delete, old, { force = true })
  end
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].filetype = 'harness-trace'
  vim.wo[win].wrap = false
  vim.wo[win].cursorline = true
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = 'harness: ' .. desc })
  end
  map('<CR>', function()
    local target = targets[vim.api.nvim_win_get_cursor(0)[1]]
    if target then
      target()
    end
  end, 'open')
  if opts.back then
    map('<BS>', opts.back, 'back')
  end
  map('q', function()
    vim.api.nvim_win_close(0, true)
  end, 'close')
  if opts.cursor then
    vim.api.nvim_win_set_cursor(win, { math.min(opts.cursor, #lines), 0 })
  end
  return buf
end

local function text_lines(v)
  if type(v) == 'string' then
    return vim.split(v, '\n', { plain = true })
  elseif type(v) == 'table' then
    local out = {}
    for _, part in ipairs(v) do
      vim.list_extend(out, text_lines(type(part) == 'table' and (part.text or part) or part))
    end
    if not v[1] then
      out[1] = vim.json.encode(v)
    end
    return out
  end
  return value(v) and { tostring(v) } or {}
end

--- The lines of one step in full; `said` is the model's words that turn.
function M.step_lines(detail, said)
  local lines = { ('# run %d · step %d'):format(detail.runId, detail.step), '' }
  if value(said) and said ~= '' then
    lines[#lines + 1] = '## the model said'
    vim.list_extend(lines, text_lines(said))
    lines[#lines + 1] = ''
  end
  lines[#lines + 1] = '## tool calls'
  for _, call in ipairs(detail.toolCalls or {}) do
    local args = type(call.arguments) == 'string' and call.arguments
      or vim.json.encode(call.arguments or vim.empty_dict())
    lines[#lines + 1] = ('- %s %s'):format(call.name, args)
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = '## prompt (as sent)'
  for _, message in ipairs(detail.prompt or {}) do
    lines[#lines + 1] = ''
    lines[#lines + 1] = '### ' .. tostring(message.role or '?')
    vim.list_extend(lines, text_lines(message.content or message.parts))
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = '## result (unelided)'
  vim.list_extend(lines, text_lines(detail.result))
  if detail.events and detail.events[1] then
    lines[#lines + 1] = ''
    lines[#lines + 1] = '## events'
    for _, event in ipairs(detail.events) do
      lines[#lines + 1] = ('- %s: %s'):format(event.kind, tostring(event.detail))
    end
  end
  return lines
end

local open_run -- forward

local function open_step(client, run_id, step, said)
  rpc.request(client, 'harness.trace.step', { runId = run_id, step = step }, function(detail)
    show(('harness://trace/%d/%d'):format(run_id, step), M.step_lines(detail, said), {}, {
      back = function()
        open_run(client, run_id, step)
      end,
    })
  end)
end

--- The lines (and per-line targets) of one run's view.
function M.run_lines(detail)
  local run = detail.run
  local lines = {
    ('run %d · %s · %s · %s tokens'):format(
      run.runId,
      value(run.outcome) and run.outcome or 'running',
      require('harness.text').count(run.steps, 'step'),
      tokens(run.spentTokens)
    ),
    'goal: ' .. notify.one_line(run.goal or '', 200),
  }
  if value(run.summary) and run.summary ~= '' then
    lines[#lines + 1] = 'summary: ' .. notify.one_line(run.summary, 200)
  end
  if type(run.filesChanged) == 'table' then
    local files = run.filesChanged[1] and table.concat(run.filesChanged, ', ') or 'none'
    lines[#lines + 1] = 'files changed: ' .. files
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = STEP_HEADER
  local first_step_line = #lines + 1
  for _, step in ipairs(detail.steps or {}) do
    lines[#lines + 1] = M.step_row(step)
  end
  return lines, first_step_line
end

open_run = function(client, run_id, cursor_step)
  rpc.request(client, 'harness.trace.run', { runId = run_id }, function(detail)
    local lines, first = M.run_lines(detail)
    local targets = {}
    for i, step in ipairs(detail.steps or {}) do
      targets[first + i - 1] = function()
        open_step(client, run_id, step.step, step.said)
      end
    end
    show(('harness://trace/%d'):format(run_id), lines, targets, {
      back = function()
        M.open_runs(client)
      end,
      cursor = cursor_step and (first + cursor_step - 1) or first,
    })
  end)
end

function M.open_runs(client)
  rpc.request(client, 'harness.trace.runs', { limit = 50 }, function(runs)
    local lines, targets = { RUNS_HEADER }, {}
    for _, run in ipairs(runs) do
      lines[#lines + 1] = M.run_row(run)
      targets[#lines] = function()
        open_run(client, run.runId)
      end
    end
    if not runs[1] then
      lines[#lines + 1] = 'No runs in the store yet: :HarnessRun {goal} starts one.'
    end
    show('harness://trace', lines, targets, { cursor = 2 })
  end)
end

--- One step of a run, whole (its prompt and every result): what <CR> on a row of the
--- conversation opens.
--- @param client vim.lsp.Client
--- @param run_id integer
--- @param step integer
function M.open_step(client, run_id, step)
  open_step(client, run_id, step)
end

--- :HarnessTrace [run]
--- @param run string?
function M.open(run)
  rpc.with_client(function(client)
    local run_id = tonumber(run or '')
    if run and run ~= '' and not run_id then
      notify.error(('%s is not a run number'):format(run))
    elseif run_id then
      open_run(client, run_id)
    else
      M.open_runs(client)
    end
  end)
end

return M
