-- The Neovim plugin (editors/neovim) as a person uses it, headless:
--   nvim --headless --clean -c 'luafile ghost.lua'
-- with PILOTFISH, ENDPOINT, PLUGIN, FILE and OUT in the environment. Typing goes through
-- Neovim's real insert mode (keys fed to its main loop), so the plugin's autocommands and
-- mappings run as they do for a person: type a character, wait for the ghost text (read back
-- from the extmark), show the next suggestion, accept it with <Tab>, type again and dismiss
-- with <C-]>. What was seen is written to OUT as JSON; a step that does not happen in time
-- writes its name as the failure.
local env = vim.env
vim.opt.runtimepath:prepend(env.PLUGIN)
local pilotfish = require('pilotfish')
pilotfish.setup({
  cmd = { env.PILOTFISH, 'lsp', '--backend', 'openai-completions', '--endpoint', env.ENDPOINT },
  debounce_ms = 10,
})
local ns = vim.api.nvim_get_namespaces().pilotfish
local results = { steps = {} }

local function finish(failure)
  results.failure = failure
  results.line = vim.api.nvim_get_current_line()
  vim.fn.writefile({ vim.json.encode(results) }, env.OUT)
  vim.cmd(failure and 'cquit 1' or 'qall!')
end

local function ghost()
  local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
  local mark = marks[1]
  if not mark then
    return nil
  end
  return mark[4].virt_text[1][1]
end

local function keys(k)
  vim.api.nvim_feedkeys(vim.keycode(k), 'm', false)
end

-- The steps below run one after another, each once its condition holds (see steps.lua).
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
local steps = dofile(here .. '/steps.lua').new(results, finish, { timeout = 20000, poll = 50 })
local step = steps.step

vim.cmd.edit(env.FILE)
step('the server starts', function()
  local c = vim.lsp.get_clients({ name = 'pilotfish' })[1]
  return c ~= nil and c.initialized
end, function()
  -- Line 5 is "    amount = ": type a `t` after it.
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  keys('At')
end)
step('ghost text appears', function()
  return ghost() ~= nil
end, function()
  results.first = ghost()
  results.cursor = vim.api.nvim_win_get_cursor(0)
  results.next_mapped = vim.fn.maparg('<M-]>', 'i') ~= ''
  keys('<M-]>')
end)
step('the next suggestion is shown', function()
  return ghost() ~= nil and ghost() ~= results.first
end, function()
  results.second = ghost()
  keys('<Tab>')
end)
step('tab accepts it', function()
  return ghost() == nil and vim.api.nvim_get_current_line() ~= '    amount = t'
end, function()
  results.accepted = vim.api.nvim_get_current_line()
  results.cursor_after = vim.api.nvim_win_get_cursor(0)
  results.mode = vim.api.nvim_get_mode().mode
  keys('<CR>x')
end)
step('ghost text appears again', function()
  return ghost() ~= nil
end, function()
  keys('<C-]>')
end)
step('dismissed', function()
  return ghost() == nil
end, function()
  results.after_dismiss = vim.api.nvim_get_current_line()
end)
steps.run()
