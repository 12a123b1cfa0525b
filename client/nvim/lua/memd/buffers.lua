-- The plugin's scratch buffers: named memd://..., buftype=nofile, filetype memd, not modifiable,
-- made once per name and refilled; `q` closes the window.
local M = {}

local function find(name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_name(buf) == name then
      return buf
    end
  end
  return nil
end

M.find = find

local function create(name)
  -- Unlisted scratch buffer: buftype=nofile, bufhidden=hide, noswapfile.
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'memd'
  vim.keymap.set('n', 'q', '<cmd>silent! close<cr>', { buffer = buf, nowait = true, desc = 'memd: close this window' })
  return buf
end

-- Replaces the buffer's text (a buffer the user wiped meanwhile is left alone).
function M.fill(buf, lines)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

local function window_showing(buf)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  return nil
end

-- Shows the buffer `name` holding `lines`: in the window already showing it, else in the current
-- window (`here`), else in a new split. Returns the buffer.
function M.show(name, lines, here)
  local buf = find(name) or create(name)
  M.fill(buf, lines)
  local win = window_showing(buf)
  if win ~= nil then
    vim.api.nvim_set_current_win(win)
  elseif here then
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

-- Opens a file in a split (or the window showing it), reading it again from disk unless the
-- buffer has changes. False when it has: the caller shows the text instead.
function M.open_file(path)
  local existing = find(path)
  if existing ~= nil and vim.bo[existing].modified then
    return false
  end
  local win = existing and window_showing(existing)
  if win ~= nil then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd('split ' .. vim.fn.fnameescape(path))
  end
  if existing ~= nil then
    vim.cmd('silent edit!')
  end
  return true
end

return M
