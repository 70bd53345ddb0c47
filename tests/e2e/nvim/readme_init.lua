-- The README's Neovim snippet ($HARNESS_README_LUA, extracted by the test) as the user's
-- init.lua, verbatim; recorders.lua keeps what the user sees.
vim.o.swapfile = false
dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'recorders.lua'))
dofile(vim.env.HARNESS_README_LUA)
