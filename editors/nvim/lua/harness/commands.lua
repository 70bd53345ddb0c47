--- harness.commands: what :HarnessRun, :HarnessCancel, :HarnessMemoryClear, :HarnessRevert
--- and :HarnessTrust do — each a server command of SPEC §7 whose result is shown.
local notify = require('harness.notify')
local rpc = require('harness.rpc')
local state = require('harness.state')

local M = {}

local function folder(client)
  return client.root_dir
end

local function with_folder(client, args)
  args = args or {}
  if folder(client) then
    args.workspaceFolder = folder(client)
  end
  return args
end

--- Start a run of `goal`; `opts.conversationId` makes it a follow-up, `opts.context`
--- attaches what the user pointed at (`[{uri, range?}]`).
--- @param goal string
--- @param opts { conversationId: integer?, context: table[]?, client: vim.lsp.Client? }?
function M.start_run(goal, opts)
  opts = opts or {}
  local function go(client)
    local args = with_folder(client, { goal = not opts.prompt and goal or nil })
    args.conversationId = opts.conversationId
    args.context = opts.context
    args.mode = opts.mode
    args.prompt = opts.prompt
    args.arguments = opts.arguments
    local conversation = require('harness.conversation')
    local drawn = conversation.pending(opts.conversationId, goal, opts.context)
    rpc.request(client, 'harness.run', args, function(result)
      state.run_started(client.id, result.runId, goal)
      conversation.started(client.id, result, goal, opts.context)
      local what = opts.mode == 'plan' and 'plan' or 'run'
      notify.info(notify.one_line(('%s %d started: %s'):format(what, result.runId, goal)))
    end, function()
      conversation.drop_pending(drawn)
    end)
  end
  if opts.client and not opts.client:is_stopped() then
    go(opts.client)
  else
    rpc.with_client(go)
  end
end

--- The selection of lines `line1`..`line2` of the current buffer, as harness.run's context.
--- @param line1 integer
--- @param line2 integer
--- @return table[]
function M.selection(line1, line2)
  local last = vim.api.nvim_buf_get_lines(0, line2 - 1, line2, false)[1] or ''
  return {
    {
      uri = vim.uri_from_bufnr(0),
      range = {
        start = { line = line1 - 1, character = 0 },
        ['end'] = { line = line2 - 1, character = #last },
      },
    },
  }
end

--- :HarnessRun {goal} — asks for the goal when none is given (offering the last one); a
--- range (`:'<,'>HarnessRun`) attaches those lines.
--- @param goal string?
--- @param range { line1: integer, line2: integer }?
function M.run(goal, range)
  local opts = {}
  if range then
    opts.context = M.selection(range.line1, range.line2)
  end
  goal = vim.trim(goal or '')
  if goal ~= '' then
    M.start_run(goal, opts)
    return
  end
  local last = require('harness.conversation').current().last_goal
  vim.ui.input({ prompt = 'Harness goal: ', default = last }, function(answer)
    answer = vim.trim(answer or '')
    if answer == '' then
      notify.info('no goal given: nothing started')
    else
      M.start_run(answer, opts)
    end
  end)
end

--- :HarnessAsk {text} and the conversation's prompt line: a follow-up in the conversation
--- shown (a new conversation when there is none).
--- @param goal string
function M.ask(goal)
  goal = vim.trim(goal or '')
  if goal == '' then
    notify.info('nothing to ask: :HarnessAsk {text}')
    return
  end
  local c = require('harness.conversation').current()
  local client = c.client_id and vim.lsp.get_client_by_id(c.client_id)
  local context = require('harness.complete').context(goal)
  M.start_run(goal, { conversationId = c.id, client = client or nil, context = context })
end

local function conversation_client()
  local c = require('harness.conversation').current()
  local client = c.client_id and vim.lsp.get_client_by_id(c.client_id)
  return c, client or nil
end

--- `:Harness plan {goal}`: a run that only reads and ends with its plan (a follow-up in
--- the conversation shown); a follow-up then carries it out.
--- @param goal string?
function M.plan(goal)
  goal = vim.trim(goal or '')
  if goal == '' then
    notify.info('nothing to plan: :Harness plan {goal}')
    return
  end
  local c, client = conversation_client()
  M.start_run(goal, { conversationId = c.id, client = client, mode = 'plan' })
end

--- Words for the run in progress (`harness.run.steer`): heard after its current step.
--- A run that ended meanwhile gets them as a follow-up instead.
local function steer(client, run_id, words)
  local args = { runId = run_id, text = words }
  rpc.request(client, 'harness.run.steer', args, function()
    notify.info(notify.one_line(('run %d hears it after this step: %s'):format(run_id, words)))
  end, function(err)
    if type(err) == 'table' and err.code == -32009 then
      M.ask(words)
    end
  end)
end

local function slash(line)
  local name, rest = line:match('^/([%w][%w_.-]*)%s*(.*)$')
  if not name then
    return false
  end
  rest = vim.trim(rest)
  if name == 'new' then
    require('harness.conversation').new()
  elseif name == 'plan' then
    M.plan(rest)
  elseif name == 'undo' then
    require('harness.convopen').restore_last()
  elseif name == 'help' then
    require('harness.convkeys').help()
  elseif name == 'memory' or name == 'cost' then
    require('harness')[name == 'memory' and 'memory' or 'trace']()
  else
    local c, client = conversation_client()
    local opts = { conversationId = c.id, client = client, prompt = name }
    opts.arguments = rest ~= '' and rest or nil
    M.start_run(line, opts)
  end
  return true
end

--- What the prompt line sends: `/name args` a prompt or command, words for the run in
--- progress (steering), else a follow-up.
--- @param line string
function M.say(line)
  line = vim.trim(line or '')
  if line == '' or slash(line) then
    return
  end
  local _, client = conversation_client()
  local run_id = require('harness.conversation').active_run()
  if run_id and client then
    steer(client, run_id, line)
    return
  end
  M.ask(line)
end

--- :HarnessCancel — the run in progress in this buffer's workspace.
function M.cancel()
  rpc.with_client(function(client)
    rpc.request(client, 'harness.status', with_folder(client), function(status)
      local root = folder(client)
      local runs = vim.tbl_filter(function(run)
        return not root or rpc.same_path(run.workspace, root) or #status.runs == 1
      end, status.runs or {})
      if not runs[1] then
        notify.info('no run is in progress' .. (root and (' in ' .. root) or ''))
        return
      end
      for _, run in ipairs(runs) do
        rpc.request(client, 'harness.cancel', { runId = run.runId }, function(result)
          notify.info(
            result.cancelled and ('run %d: cancelling at the next safe point'):format(run.runId)
              or ('run %d was no longer in progress'):format(run.runId)
          )
        end)
      end
    end)
  end)
end

--- Ask a yes/no question with vim.ui.select (your picker, if you have one); the safe
--- answer comes first. `on_yes` runs only on an explicit yes.
--- @param question string
--- @param yes string
--- @param no string
--- @param on_yes fun()
--- @param on_no fun()?
function M.confirm(question, yes, no, on_yes, on_no)
  local prompt = require('harness.text').plain(question)
  vim.ui.select({ no, yes }, { prompt = prompt }, function(choice)
    if choice == yes then
      on_yes()
    elseif on_no then
      on_no()
    end
  end)
end

local function plural(n, what)
  return ('%d %s%s'):format(n, what, n == 1 and '' or 's')
end

local function clear(client, scope, keep)
  local args = with_folder(client, { scope = scope, keepPinned = keep and true or nil })
  rpc.request(client, 'harness.memory.clear', args, function(r)
    local pinned = tonumber(r.pinned) or 0
    local said = 'deleted ' .. plural(r.deleted, 'note')
    if keep then
      said = said .. ('; kept %d pinned'):format(keep)
    elseif pinned > 0 then
      said = said .. (' (%d pinned)'):format(pinned)
    end
    notify.info(said)
    require('harness.events').refresh(client.id)
  end)
end

--- :HarnessMemoryClear [global] — says how many notes (and pinned ones) first, and can
--- keep the pinned notes.
--- @param scope string?
function M.memory_clear(scope)
  scope = (scope and scope ~= '') and scope or 'workspace'
  rpc.with_client(function(client)
    local where = scope == 'global' and 'the global notes' or ('the notes of ' .. folder(client))
    rpc.request(
      client,
      'harness.memory.list',
      with_folder(client, { scope = scope }),
      function(notes)
        local pinned = #vim.tbl_filter(function(n)
          return n.pinned == true
        end, notes)
        if #notes == 0 then
          notify.info('no notes to delete in ' .. where)
          return
        end
        local no, all = 'No, keep them', ('Yes, delete all %d (%d pinned)'):format(#notes, pinned)
        local keep = ('Delete the %d not pinned, keep the %d pinned'):format(
          #notes - pinned,
          pinned
        )
        local choices = pinned > 0 and pinned < #notes and { no, all, keep } or { no, all }
        local prompt = ('Delete %s: %s (%d pinned)?'):format(where, plural(#notes, 'note'), pinned)
        vim.ui.select(choices, { prompt = require('harness.text').plain(prompt) }, function(choice)
          if choice == all then
            clear(client, scope)
          elseif choice == keep then
            clear(client, scope, pinned)
          else
            notify.info('nothing deleted')
          end
        end)
      end
    )
  end)
end

--- One line per file of a revert result.
--- @param result table
--- @return string
function M.revert_text(result)
  local by = {}
  for _, file in ipairs(result.files or {}) do
    by[file.action] = by[file.action] or {}
    local reason = type(file.reason) == 'string'
      and file.reason ~= ''
      and (' (' .. file.reason .. ')')
    table.insert(by[file.action], file.path .. (reason or ''))
  end
  local parts = {}
  for _, action in ipairs({ 'restored', 'deleted', 'unchanged', 'refused', 'failed' }) do
    if by[action] then
      parts[#parts + 1] = action .. ' ' .. table.concat(by[action], ', ')
    end
  end
  if not parts[1] then
    parts[1] = 'the run wrote no file'
  end
  return ('run %d revert: %s'):format(result.runId, table.concat(parts, '; '))
end

local function revert(client, run_id, force)
  local args = { runId = run_id, force = force or nil }
  rpc.request(client, 'harness.run.revert', args, function(result)
    local refused = 0
    for _, file in ipairs(result.files or {}) do
      refused = refused + (file.action == 'refused' and 1 or 0)
    end
    local level = (refused > 0 or (result.failed or 0) > 0) and vim.log.levels.WARN
      or vim.log.levels.INFO
    notify.show(M.revert_text(result), level)
    if refused > 0 and not force then
      local question = ('%d %s changed since run %d wrote them. Overwrite them too?'):format(
        refused,
        refused == 1 and 'file was' or 'files were',
        run_id
      )
      M.confirm(question, 'Overwrite them', 'Keep them', function()
        revert(client, run_id, true)
      end)
    end
  end)
end

--- :HarnessRevert [run] — picks from the finished runs when none is given.
--- @param run string?
function M.revert(run)
  rpc.with_client(function(client)
    local run_id = tonumber(run or '')
    if run_id then
      revert(client, run_id, false)
      return
    end
    rpc.request(client, 'harness.trace.runs', { limit = 20 }, function(runs)
      local root = folder(client)
      local done = vim.tbl_filter(function(r)
        return r.outcome ~= vim.NIL
          and r.outcome ~= nil
          and (not root or rpc.same_path(r.workspace, root))
      end, runs)
      if not done[1] then
        notify.info('no finished run to revert')
        return
      end
      vim.ui.select(done, {
        prompt = 'Revert which run? ',
        format_item = function(r)
          return notify.one_line(('run %d · %s · %s'):format(r.runId, r.outcome, r.goal), 100)
        end,
      }, function(choice)
        if choice then
          revert(client, choice.runId, false)
        end
      end)
    end)
  end)
end

--- :HarnessTrust[!] — record this workspace as trusted (! : no longer trusted).
--- @param revoke boolean
function M.trust(revoke)
  rpc.with_client(function(client)
    local args = with_folder(client, { trusted = not revoke })
    rpc.request(client, 'harness.trust', args, function(result)
      result = type(result) == 'table' and result or {}
      local where = type(result.workspaceFolder) == 'string' and result.workspaceFolder
        or folder(client)
      local now = result.trusted
      if type(now) ~= 'boolean' then
        now = not revoke
      end
      local program = require('harness.attach').relaunch(client)
      local again = program and ('; harness-lsp restarts: ' .. program) or ''
      if now then
        -- revoking a folder a trusted parent covers leaves it trusted (the server says why)
        notify.info(('%s is %strusted%s'):format(where, revoke and 'still ' or '', again))
      else
        notify.info(('%s is no longer trusted%s'):format(where, again))
      end
    end)
  end)
end

return M
