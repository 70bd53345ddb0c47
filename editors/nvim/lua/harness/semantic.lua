--- harness.semantic: the editor back end of the semantic tools (SPEC §14). The client
--- declares `experimental.harness.semantic`; the server's `harness/semantic` requests are
--- answered by the other language servers attached to the file's buffer (the buffer is
--- loaded first, so the user's servers attach), each asked with `client:request` — async:
--- the editor never blocks — in its own offset encoding. The answer carries that client's
--- name and `positionEncoding`. A rename is only computed here: the server writes it.
--- Nothing to ask, or nothing answered: `{unavailable}`, and the server asks its own.
local M = {}

local METHODS = {
  references = 'textDocument/references',
  definition = 'textDocument/definition',
  rename = 'textDocument/rename',
  symbols = 'textDocument/documentSymbol',
}
local ATTACH_WAIT_MS = 8000 -- a language server starting for a buffer loaded just now
local ANSWER_WAIT_MS = 60000 -- the server gives up sooner (semanticTimeoutMs) anyway

local function unavailable(why)
  return { unavailable = why }
end

--- Yield until `start(resume)` calls `resume` (once; later calls are ignored) or `ms` pass.
local function await(ms, start)
  local co = coroutine.running()
  local done = false
  local timer = assert(vim.uv.new_timer())
  local function resume()
    if done then
      return
    end
    done = true
    timer:stop()
    timer:close()
    vim.schedule(function()
      coroutine.resume(co)
    end)
  end
  timer:start(ms, 0, resume)
  start(resume)
  coroutine.yield()
end

--- The loaded buffer of `uri`, its filetype detected (so the user's servers attach), and
--- whether it was loaded just now.
local function buffer(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  local fresh = not vim.api.nvim_buf_is_loaded(bufnr)
  if fresh then
    vim.fn.bufload(bufnr)
  end
  if vim.bo[bufnr].filetype == '' then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('filetype detect')
    end)
  end
  return bufnr, fresh
end

--- The clients of `bufnr` other than harness that support `method`; for a buffer loaded
--- just now (`fresh`), waiting a while for one to attach.
local function clients(bufnr, method, fresh)
  local function found()
    return vim.tbl_filter(function(c)
      return c.name ~= 'harness'
    end, vim.lsp.get_clients({ bufnr = bufnr, method = method }))
  end
  if #found() == 0 and fresh then
    local id
    await(ATTACH_WAIT_MS, function(resume)
      id = vim.api.nvim_create_autocmd('LspAttach', {
        buffer = bufnr,
        callback = vim.schedule_wrap(function()
          if #found() > 0 then
            resume()
          end
        end),
      })
    end)
    pcall(vim.api.nvim_del_autocmd, id)
  end
  return found()
end

--- A UTF-16 position (the wire's) in `encoding`, counted on the buffer's line.
function M.position(bufnr, pos, encoding)
  local line = vim.api.nvim_buf_get_lines(bufnr, pos.line, pos.line + 1, false)[1] or ''
  local byte = vim.str_byteindex(line, 'utf-16', pos.character, false)
  return { line = pos.line, character = vim.str_utfindex(line, encoding, byte, false) }
end

local function request_params(bufnr, params, client)
  local p = { textDocument = params.textDocument }
  if params.position then
    p.position = M.position(bufnr, params.position, client.offset_encoding)
  end
  if params.method == 'references' then
    p.context = { includeDeclaration = true }
  end
  if params.newName then
    p.newName = params.newName
  end
  return p
end

--- Each client's reply, in the order of `list`.
local function ask_all(bufnr, params, list)
  local replies, left = {}, #list
  await(ANSWER_WAIT_MS, function(resume)
    for i, client in ipairs(list) do
      local sent = client:request(
        METHODS[params.method],
        request_params(bufnr, params, client),
        function(err, result)
          replies[i] = { client = client, err = err, result = result }
          left = left - 1
          if left == 0 then
            resume()
          end
        end,
        bufnr
      )
      if not sent then
        left = left - 1
      end
    end
    if left == 0 then
      resume()
    end
  end)
  return replies
end

--- `changes` (a map by URI) as `documentChanges`, which the server reads.
local function document_changes(edit)
  if edit.documentChanges or not edit.changes then
    return edit
  end
  local out = {}
  for uri, edits in pairs(edit.changes) do
    out[#out + 1] = { textDocument = { uri = uri, version = vim.NIL }, edits = edits }
  end
  return { documentChanges = out }
end

local function locations(result)
  local list = result.uri and { result } or result
  return vim.tbl_map(function(l)
    return l.targetUri and { uri = l.targetUri, range = l.targetSelectionRange or l.targetRange }
      or l
  end, list)
end

local function shaped(method, result)
  if method == 'rename' then
    return { edit = document_changes(result) }
  elseif method == 'symbols' then
    return { symbols = result }
  end
  return { locations = locations(result) }
end

--- The first reply with something in it, as the answer.
local function answer_of(method, replies)
  local errors = {}
  for _, r in ipairs(replies) do
    local result = r.result
    if r.err then
      errors[#errors + 1] = ('%s: %s'):format(r.client.name, r.err.message or 'error')
    elseif type(result) == 'table' and next(result) ~= nil then
      local out = shaped(method, result)
      out.server, out.positionEncoding = r.client.name, r.client.offset_encoding
      return out
    end
  end
  local why = #errors > 0 and table.concat(errors, '; ') or 'no language server found anything'
  return unavailable(why)
end

local function wire_diagnostic(d)
  local range = {
    start = { line = d.lnum, character = d.col },
    ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
  }
  return { range = range, severity = d.severity, message = d.message, source = d.source }
end

--- The buffer's diagnostics (byte columns: UTF-8), after waiting up to `wait_ms` for them
--- to change once (a file just written is re-checked by its servers).
local function diagnostics(bufnr, wait_ms)
  if (wait_ms or 0) > 0 then
    local id
    await(wait_ms, function(resume)
      id = vim.api.nvim_create_autocmd('DiagnosticChanged', { buffer = bufnr, callback = resume })
    end)
    pcall(vim.api.nvim_del_autocmd, id)
  end
  local found = vim.tbl_map(wire_diagnostic, vim.diagnostic.get(bufnr))
  return { server = 'vim.diagnostic', positionEncoding = 'utf-8', diagnostics = found }
end

--- The `harness/semantic` handler (a server request: Neovim runs it in a coroutine).
function M.handle(_, params, _)
  local co, is_main = coroutine.running()
  if not co or is_main then
    return unavailable('not asked from a coroutine')
  end
  local uri = params.textDocument and params.textDocument.uri
  if type(uri) ~= 'string' or not uri:match('^file:') then
    return unavailable('not a file URI')
  end
  local bufnr, fresh = buffer(uri)
  if params.method == 'diagnostics' then
    return diagnostics(bufnr, params.waitMs)
  end
  local method = METHODS[params.method]
  if not method then
    return unavailable(('no method %s'):format(tostring(params.method)))
  end
  local list = clients(bufnr, method, fresh)
  if #list == 0 then
    return unavailable(('no attached language server answers %s'):format(method))
  end
  return answer_of(params.method, ask_all(bufnr, params, list))
end

return M
