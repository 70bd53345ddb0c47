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

local function start_run(goal)
  rpc.with_client(function(client)
    rpc.request(client, 'harness.run', with_folder(client, { goal = goal }), function(result)
      state.run_started(client.id, result.runId, goal)
      notify.info(notify.one_line(('run %d started: %s'):format(result.runId, goal)))
    end)
  end)
end

--- :HarnessRun {goal} — asks for the goal when none is given.
--- @param goal string?
function M.run(goal)
  goal = vim.trim(goal or '')
  if goal ~= '' then
    start_run(goal)
    return
  end
  vim.ui.input({ prompt = 'Harness goal: ' }, function(answer)
    answer = vim.trim(answer or '')
    if answer == '' then
      notify.info('no goal given: nothing started')
    else
      start_run(answer)
    end
  end)
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

--- :HarnessMemoryClear [global] — after a confirmation.
--- @param scope string?
function M.memory_clear(scope)
  scope = (scope and scope ~= '') and scope or 'workspace'
  rpc.with_client(function(client)
    local where = scope == 'global' and 'the global notes' or ('the notes of ' .. folder(client))
    M.confirm(
      ('Delete all %s (pinned ones too)?'):format(where),
      'Yes, delete them',
      'No, keep them',
      function()
        rpc.request(
          client,
          'harness.memory.clear',
          with_folder(client, { scope = scope }),
          function(r)
            notify.info(('deleted %d %s'):format(r.deleted, r.deleted == 1 and 'note' or 'notes'))
            require('harness.events').refresh(client.id)
          end
        )
      end,
      function()
        notify.info('nothing deleted')
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
