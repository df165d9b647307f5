-- The Neovim plugin's next edit suggestions (editors/neovim, `pilotfish.nes`) as a person uses
-- them, headless:
--   nvim --headless --clean -c 'luafile next_edit.lua'
-- with PILOTFISH, CONFIG, ENDPOINT, PLUGIN, FILE and OUT in the environment. FILE holds
-- `class Point` and two `new Point(` uses. The rename is typed in insert mode (keys fed to
-- Neovim's main loop, so the plugin's autocommands run as they do for a person); the suggestion
-- that follows is read back from the plugin's extmarks and accepted with <M-CR>. Then, on the
-- other use, the suggestion is asked for through the plugin's function, turned down with
-- <M-Esc>, asked for again and accepted. What was seen is written to OUT as JSON; a step that
-- does not happen in time writes its name as the failure.
local env = vim.env
vim.opt.runtimepath:prepend(env.PLUGIN)
local pilotfish = require('pilotfish')
local nes = require('pilotfish.nes')
pilotfish.setup({
  cmd = { env.PILOTFISH, 'lsp', '--config', env.CONFIG, '--backend', 'openai-completions', '--endpoint',
    env.ENDPOINT },
  debounce_ms = 10,
  next_edit = { debounce_ms = 10 },
})
local results = { steps = {} }

local function text()
  return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n') .. '\n'
end

local function finish(failure)
  results.failure = failure
  results.text = text()
  vim.fn.writefile({ vim.json.encode(results) }, env.OUT)
  vim.cmd(failure and 'cquit 1' or 'qall!')
end

-- The suggestion drawn: the line its virtual lines hang from, and their text.
local function shown()
  local ns = vim.api.nvim_get_namespaces()['pilotfish.nes']
  if not ns then
    return nil
  end
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
    local lines = mark[4].virt_lines
    if lines then
      local texts = {}
      for _, chunks in ipairs(lines) do
        texts[#texts + 1] = chunks[1][1]
      end
      return { line = mark[2], virt_lines = texts }
    end
  end
  return nil
end

-- Whether the client has no request under way and the last action is `ms` old, so that a
-- request the plugin schedules after an edit has been made and answered.
local acted = vim.uv.now()
local function settled(ms)
  local c = vim.lsp.get_clients({ name = 'pilotfish' })[1]
  for _, r in pairs(c and c.requests or {}) do
    if r.type == 'pending' then
      return false
    end
  end
  return vim.uv.now() - acted > ms
end

local function keys(k)
  acted = vim.uv.now()
  vim.api.nvim_feedkeys(vim.keycode(k), 'm', false)
end

-- The cursor on `Point` of line `line` (1-based).
local function on_point(line)
  local l = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1]
  vim.api.nvim_win_set_cursor(0, { line, l:find('Point') - 1 })
end

-- The steps below run one after another, each once its condition holds (see steps.lua).
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
local steps = dofile(here .. '/steps.lua').new(results, finish, { timeout = 15000, poll = 25 })
local step = steps.step

vim.cmd.edit(env.FILE)
step('the server starts', function()
  local c = vim.lsp.get_clients({ name = 'pilotfish' })[1]
  return c ~= nil and c.initialized
end, function()
  -- `class Point {`: type `3D` after `Point`, and go back to normal mode.
  vim.api.nvim_win_set_cursor(0, { 1, 10 })
  keys('a3D<Esc>')
end)
step('a suggestion is shown after the rename', function()
  return shown() ~= nil and vim.api.nvim_get_mode().mode == 'n'
end, function()
  results.first = shown()
  keys('<M-CR>')
end)
step('<M-CR> accepts it', function()
  return shown() == nil and vim.api.nvim_buf_get_lines(0, 5, 6, false)[1]:find('Point3D') ~= nil
end, function()
  results.accepted = text()
  acted = vim.uv.now()
end)
-- The edit of the acceptance asks for the next suggestion by itself; it must be answered (with
-- nothing: the lines near the cursor hold no `Point(` any more) before asking on the other use.
step('the request after the acceptance is answered', function()
  return settled(300)
end, function()
  results.after_accept = shown()
  on_point(10)
  acted = vim.uv.now()
  nes.request()
end)
step('a suggestion is shown on the other use', function()
  return shown() ~= nil
end, function()
  results.second = shown()
  keys('<M-Esc>')
end)
step('<M-Esc> turns it down', function()
  return shown() == nil
end, function()
  results.dismissed = text()
  acted = vim.uv.now()
  nes.request()
end)
step('asked again, it is shown again', function()
  return shown() ~= nil
end, function()
  results.third = shown()
  keys('<M-CR>')
end)
step('and accepted', function()
  return shown() == nil and vim.api.nvim_buf_get_lines(0, 9, 10, false)[1]:find('Point3D') ~= nil
end, function()
  results.final = text()
end)
steps.run()
