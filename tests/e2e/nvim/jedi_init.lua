-- The e2e user config (init.lua) plus jedi-language-server as a second LSP client for
-- Python buffers, as a user configures one: the editor back end of the semantic tools
-- (SPEC §14) asks it through vim.lsp.
dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'init.lua'))
vim.lsp.config('jedi', {
  cmd = { 'jedi-language-server' },
  filetypes = { 'python' },
  root_markers = { '.git' },
})
vim.lsp.enable('jedi')
