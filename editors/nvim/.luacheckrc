-- luacheck (Debian's lua-check) for the Neovim plugin: `make lint`.
std = 'luajit'
read_globals = { 'vim' }
max_line_length = 100
