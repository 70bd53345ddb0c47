-- The `harness` LSP config: `vim.lsp.enable('harness')` is all it takes (SPEC §10).
-- require('harness').setup(opts) adds the settings; `:help harness`.
local function handler(name)
  return function(...)
    return require('harness.events').handlers()[name](...)
  end
end

---@type vim.lsp.Config
return {
  -- harness-lsp: your `cmd` setting, else <root>/.venv/bin/harness-lsp, else $PATH.
  cmd = function(dispatchers, config)
    return require('harness.server').start(dispatchers, config)
  end,
  -- No `filetypes`: every file buffer of a workspace is served, whatever its filetype.
  root_dir = function(bufnr, on_dir)
    require('harness.attach').root_dir(bufnr, on_dir)
  end,
  handlers = {
    ['harness/budget'] = handler('harness/budget'),
    ['harness/runFinished'] = handler('harness/runFinished'),
    ['harness/runEvent'] = handler('harness/runEvent'),
    ['harness/didWrite'] = handler('harness/didWrite'),
    ['window/showMessage'] = handler('window/showMessage'),
    ['window/showMessageRequest'] = handler('window/showMessageRequest'),
    ['harness/approve'] = handler('harness/approve'),
    ['$/cancelRequest'] = handler('$/cancelRequest'),
    ['harness/semantic'] = function(...)
      return require('harness.semantic').handle(...)
    end,
  },
  -- The editor back end of the semantic tools (SPEC §14): the other attached servers answer;
  -- approvals come as harness/approve (the run, step and call they approve).
  capabilities = { experimental = { harness = { semantic = true, approvals = true } } },
}
