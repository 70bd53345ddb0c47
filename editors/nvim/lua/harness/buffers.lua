--- harness.buffers: `harness/didWrite {uri}` — the agent (or a revert) wrote a file on
--- disk; an open, unmodified buffer of it is reloaded at once (undoable: 'undoreload'), with
--- every window's view kept. A buffer with unsaved changes is never touched: the user is
--- told what happened and how to choose.
local notify = require('harness.notify')

local M = {}

local function real(path)
  return vim.uv.fs_realpath(path) or vim.fs.normalize(path)
end

--- The loaded buffer holding `path`, if any.
--- @param path string
--- @return integer?
function M.find(path)
  local want = real(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= '' and real(name) == want then
        return buf
      end
    end
  end
  return nil
end

--- Reload a buffer from disk, keeping the view of each window that shows it.
--- @param buf integer
function M.reload(buf)
  local views = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    views[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
  end
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent keepalt keepjumps edit')
  end)
  for win, view in pairs(views) do
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_call(win, function()
        vim.fn.winrestview(view)
      end)
    end
  end
end

--- The handler of harness/didWrite.
--- @param uri string
function M.did_write(uri)
  local path = vim.uri_to_fname(uri)
  local buf = M.find(path)
  if not buf then
    return
  end
  local shown = vim.fn.fnamemodify(path, ':~:.')
  if vim.bo[buf].modified then
    notify.warn(
      ('%s changed on disk, but your buffer has unsaved changes, so it was not reloaded: '):format(
        shown
      ) .. ':e! loads the new text, :w keeps yours'
    )
    return
  end
  if not vim.uv.fs_stat(path) then
    notify.warn(('%s was deleted on disk; its buffer is kept'):format(shown))
    return
  end
  M.reload(buf)
end

return M
