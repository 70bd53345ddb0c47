-- The user config of the end-to-end tests: the plugin on the runtimepath (as a plugin
-- manager puts it) and require('harness').setup($HARNESS_SETUP) — or, for "enable-only",
-- nothing but vim.lsp.enable('harness'). recorders.lua keeps what the user sees.
vim.opt.runtimepath:prepend(vim.env.HARNESS_PLUGIN)
vim.o.swapfile = false
dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'recorders.lua'))

local setup = vim.json.decode(vim.env.HARNESS_SETUP or '{}')
if setup == 'enable-only' then
  vim.lsp.enable('harness')
else
  require('harness').setup(setup)
end
