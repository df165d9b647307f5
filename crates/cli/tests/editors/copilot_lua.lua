-- copilot.lua (the real plugin, carried in tests/fixtures/plugins) set up as docs/editors.md
-- says, against `pilotfish lsp`, headless:
--   nvim --headless --clean -c 'luafile copilot_lua.lua'
-- with PILOTFISH (the binary, given to the plugin as its server), PLUGIN, FILE (a Python file
-- whose line 2 is `    s = "é" + `), CRLF (the same with CRLF line breaks) and OUT in the
-- environment; PILOTFISH_CONFIG points the server at the scripted model. For each file just
-- opened: insert mode at the end of line 2 shows the ghost text with no edit made, the next
-- suggestion is cycled to, <M-l> accepts it; then the panel is opened and filled. What was seen
-- is written to OUT as JSON; a step that does not happen in time writes its name as failure.
local env = vim.env
vim.opt.runtimepath:prepend(env.PLUGIN)
-- The set-up of docs/editors.md, with a shorter debounce and no log file for the test.
require('copilot').setup({
  server = { type = 'binary', custom_server_filepath = env.PILOTFISH },
  suggestion = { auto_trigger = true, debounce = 10 },
  logger = { file_log_level = vim.log.levels.OFF, print_log_level = vim.log.levels.OFF },
})
local results = { steps = {}, files = {} }

local function finish(failure)
  results.failure = failure
  vim.fn.writefile({ vim.json.encode(results) }, env.OUT)
  vim.cmd(failure and 'cquit 1' or 'qall!')
end

-- The ghost text copilot.lua draws after the cursor (its `copilot.suggestion` extmark), and
-- the annotation beside it while cycling (`(2/2)`).
local function ghost()
  local ns = vim.api.nvim_get_namespaces()['copilot.suggestion']
  for _, mark in ipairs(ns and vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true }) or {}) do
    local chunks = mark[4].virt_text
    if chunks and chunks[1] then
      return chunks[1][1], chunks[3] and chunks[3][1]
    end
  end
  return nil
end

local function keys(k)
  vim.api.nvim_feedkeys(vim.keycode(k), 'm', false)
end

local function attached()
  local c = vim.lsp.get_clients({ name = 'copilot', bufnr = 0 })[1]
  return c ~= nil and c.initialized
end

-- The panel's buffer (copilot.lua names it `copilot:///...`), if open.
local function panel_buffer()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):match('^copilot:///') then
      return b
    end
  end
  return nil
end

local function panel_header(b)
  local ns = vim.api.nvim_get_namespaces()['copilot.panel']
  local mark = ns and vim.api.nvim_buf_get_extmark_by_id(b, ns, 1, { details = true })
  return mark and mark[3] and mark[3].virt_text and mark[3].virt_text[1][1] or ''
end

local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
local steps = dofile(here .. '/steps.lua').new(results, finish, { timeout = 20000, poll = 50 })
local step = steps.step

-- The same steps for each file, one after the other.
local function file_steps(name, path)
  local seen = {}
  results.files[name] = seen
  step(name .. ': the file opens and copilot.lua attaches', function()
    return true
  end, function()
    vim.cmd.edit(path)
    seen.fileformat = vim.bo.fileformat
  end)
  step(name .. ': the server serves the buffer', attached, function()
    seen.changedtick = vim.b.changedtick
    -- Line 2 is `    s = "é" + `: insert mode at its end, nothing typed.
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    keys('A')
  end)
  step(name .. ': ghost text in the file just opened', function()
    return ghost() ~= nil
  end, function()
    seen.ghost = (ghost())
    seen.edited = vim.b.changedtick ~= seen.changedtick
    keys('<M-]>')
  end)
  step(name .. ': cycling shows the next suggestion', function()
    local _, annotation = ghost()
    return annotation ~= nil and annotation:match('^%(2/') ~= nil
  end, function()
    seen.cycled, seen.annotation = ghost()
    keys('<M-l>')
  end)
  step(name .. ': <M-l> accepts it', function()
    return vim.api.nvim_buf_get_lines(0, 1, 2, false)[1] ~= '    s = "é" + '
  end, function()
    -- The acceptance is applied in a scheduled callback: let it and the cursor settle.
    vim.defer_fn(function()
      seen.lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
      seen.cursor = vim.api.nvim_win_get_cursor(0)
      keys('<Esc>')
    end, 100)
  end)
  step(name .. ': back in normal mode', function()
    return vim.api.nvim_get_mode().mode == 'n' and seen.lines ~= nil
  end, function()
    -- Undo the acceptance, then ask the panel about the line as it was.
    vim.cmd('silent undo')
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    require('copilot.panel').open({})
  end)
  step(name .. ': the panel fills', function()
    local b = panel_buffer()
    return b ~= nil and panel_header(b):match('Synthesized') ~= nil
  end, function()
    local b = panel_buffer()
    seen.panel_header = panel_header(b)
    seen.panel = vim.api.nvim_buf_get_lines(b, 0, -1, false)
    require('copilot.panel').close()
  end)
  step(name .. ': the panel closes', function()
    return panel_buffer() == nil or vim.fn.bufwinnr(panel_buffer()) == -1
  end)
end

file_steps('lf', env.FILE)
file_steps('crlf', env.CRLF)
steps.run()
