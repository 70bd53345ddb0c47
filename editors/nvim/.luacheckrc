-- luacheck (Debian's lua-check) for the Neovim plugin and the test configs: `make lint`.
std = 'luajit'
globals = { 'vim' } -- options and variables are set through vim.o, vim.bo, vim.g…
max_line_length = 100
