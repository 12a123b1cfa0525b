-- memd: the :Memd command, and a connection to a running memd once Neovim has started (set
-- g:memd_no_autoconnect to connect only when the statusline or a command first asks).
if vim.g.loaded_memd ~= nil then
  return
end
vim.g.loaded_memd = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.notify('memd: needs Neovim 0.7 or later', vim.log.levels.ERROR)
  return
end

vim.api.nvim_create_user_command('Memd', function(command)
  require('memd.commands').run(command.fargs)
end, {
  nargs = '*',
  desc = 'memd: status, sessions, summary, handoff, compact',
  complete = function(lead, line)
    return require('memd.commands').complete(lead, line)
  end,
})

if not vim.g.memd_no_autoconnect then
  -- After start-up, so that setup() in init.lua has set the options first.
  vim.schedule(function()
    require('memd').start()
  end)
end
