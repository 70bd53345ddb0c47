--- harness.state: what the plugin knows of each harness client (one per workspace root) —
--- the run in progress or last finished, its last budget, the notes count, pending
--- approvals — and the `User HarnessStatus` event that tells statuslines to redraw.
local M = {}

---@class harness.ClientState
---@field root string?
---@field run { runId: integer, goal: string?, outcome: string?, active: boolean }?
---@field budget table? the last harness/budget of `run`
---@field notes integer? workspace notes (from harness.status)
---@field approvals integer pending approvals

local clients = {} ---@type table<integer, harness.ClientState>

--- @param client_id integer
--- @return harness.ClientState
function M.get(client_id)
  local s = clients[client_id]
  if not s then
    local client = vim.lsp.get_client_by_id(client_id)
    s = { root = client and client.root_dir, approvals = 0 }
    clients[client_id] = s
  end
  return s
end

function M.forget(client_id)
  clients[client_id] = nil
end

local served = {} ---@type table<integer, integer> buffer → the harness client last attached

--- A harness client attached to `bufnr` (LspAttach).
function M.remember(bufnr, client_id)
  served[bufnr] = client_id
end

--- The state of the harness client serving a buffer (nil: none serves it). A buffer the
--- agent just wrote is reloaded, and its client detaches and attaches again: meanwhile it
--- counts as served by the client it had (the statusline item stays).
--- @param bufnr integer
--- @return harness.ClientState?
--- @return integer? client_id
function M.for_buffer(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'harness' })[1]
  if not client and served[bufnr] then
    client = vim.lsp.get_client_by_id(served[bufnr])
    if not client or client:is_stopped() or not vim.api.nvim_buf_is_loaded(bufnr) then
      served[bufnr], client = nil, nil
    end
  end
  if not client then
    return nil
  end
  return M.get(client.id), client.id
end

--- Tell statuslines (and anyone listening to `User HarnessStatus`) that something changed.
--- @param kind string 'budget'|'run'|'finished'|'notes'|'approval'
--- @param data table?
function M.changed(kind, data)
  local function fire()
    vim.cmd('redrawstatus!')
    vim.api.nvim_exec_autocmds('User', {
      pattern = 'HarnessStatus',
      modeline = false,
      data = { kind = kind, params = data },
    })
  end
  if vim.in_fast_event() then
    vim.schedule(fire)
  else
    fire()
  end
end

--- A run started by this client.
function M.run_started(client_id, run_id, goal)
  local s = M.get(client_id)
  s.run = { runId = run_id, goal = goal, active = true }
  s.budget = nil
  M.changed('run', s.run)
end

--- A harness/budget notification.
function M.budget(client_id, budget)
  local s = M.get(client_id)
  if not s.run or s.run.runId ~= budget.runId then
    s.run = { runId = budget.runId, active = true }
  end
  s.budget = budget
  M.changed('budget', budget)
end

--- A harness/runFinished notification.
function M.finished(client_id, result)
  local s = M.get(client_id)
  if not s.run or s.run.runId ~= result.runId then
    s.run = { runId = result.runId }
    s.budget = nil
  end
  s.run.active = false
  s.run.outcome = result.outcome
  s.run.spentTokens = result.spentTokens
  s.run.steps = result.steps
  M.changed('finished', result)
end

--- What harness.status said: the notes count, and a run in progress (after a restart).
function M.status(client_id, status)
  local s = M.get(client_id)
  local memory = status.memory and status.memory.workspace
  if type(memory) == 'table' then
    s.notes = memory.entries
  end
  for _, run in ipairs(status.runs or {}) do
    if not s.run or s.run.runId ~= run.runId or not s.run.active then
      if not s.root or require('harness.rpc').same_path(run.workspace, s.root) then
        s.run = { runId = run.runId, goal = run.goal, active = true }
        s.budget = type(run.lastBudget) == 'table' and run.lastBudget or nil
      end
    end
  end
  M.changed('notes', { notes = s.notes })
end

function M.approvals(client_id, count)
  M.get(client_id).approvals = count
  M.changed('approval', { pending = count })
end

return M
