--- pilotfish for Neovim: starts `pilotfish lsp` for your buffers and shows its inline
--- completions as ghost text while you type, and its next edit suggestions (`pilotfish.nes`).
---
--- Neovim 0.12 and later have an inline-completion UI of their own (`vim.lsp.inline_completion`),
--- which this plugin turns on. Neovim 0.11 has none, so the plugin draws the suggestion itself
--- with extmarks: the rest of the line after the cursor, and the lines below as virtual lines.
---
---   require('pilotfish').setup({
---     cmd = { 'pilotfish', 'lsp' },           -- how to start the server
---     keys = { accept = '<Tab>', dismiss = '<C-]>', next = '<M-]>', prev = '<M-[>' },
---   })
local M = {}

local ns = vim.api.nvim_create_namespace('pilotfish')

M.config = {
  -- The language server's command line (add `--config FILE`, `--backend ...` as needed).
  cmd = { 'pilotfish', 'lsp' },
  -- File types to start the server for; nil for every buffer that has a file.
  filetypes = nil,
  -- Files that mark a project's root folder.
  root_markers = { '.git' },
  -- How long typing must pause before a suggestion is asked for, in milliseconds. The server
  -- waits Copilot's 75 ms too; this wait saves the messages for keystrokes typed in a burst.
  debounce_ms = 30,
  -- Insert-mode keys; false leaves one unmapped. A key pressed with no suggestion shown does
  -- what it does without the plugin.
  keys = { accept = '<Tab>', dismiss = '<C-]>', next = '<M-]>', prev = '<M-[>' },
  -- Use Neovim's own inline-completion UI where it exists (0.12 and later).
  native = true,
  -- The highlight group of the ghost text.
  hl_group = 'Comment',
  -- Next edit suggestions (see `pilotfish.nes`): `{ enabled = false }` turns them off.
  next_edit = {},
}

-- Per buffer: the suggestions shown, which one, and where they were asked for.
local shown = {}
local timers = {}

--- The pilotfish client of `buf` (also for `pilotfish.nes`).
function M.client_for(buf)
  return vim.lsp.get_clients({ bufnr = buf, name = 'pilotfish' })[1]
end
local client_for = M.client_for

-- A position's character (in the client's encoding) as a byte column of `line`.
local function byte_col(line, character, encoding)
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  local ok, col = pcall(vim.str_byteindex, line, encoding, character, false)
  return ok and col or #line
end

local function item_text(item)
  local text = item.insertText or item.text or ''
  if type(text) == 'table' then
    text = text.value or ''
  end
  return text
end

--- Removes the ghost text of `buf` (default: the current buffer).
function M.dismiss(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  end
  local had = shown[buf] ~= nil
  shown[buf] = nil
  return had
end

-- What an item adds after the cursor: its text without what is already typed in its range.
local function ghost_of(s, item)
  local line = vim.api.nvim_buf_get_lines(s.buf, s.row, s.row + 1, false)[1] or ''
  local start = s.col
  if item.range then
    if item.range.start.line ~= s.row then
      return nil
    end
    start = byte_col(line, item.range.start.character, s.encoding)
  end
  local typed = line:sub(start + 1, s.col)
  local text = item_text(item)
  if text:sub(1, #typed) ~= typed then
    return nil
  end
  return text:sub(#typed + 1), start
end

local function draw(s)
  vim.api.nvim_buf_clear_namespace(s.buf, ns, 0, -1)
  local ghost = ghost_of(s, s.items[s.index])
  if not ghost or ghost == '' then
    return
  end
  local lines = vim.split(ghost, '\n', { plain = true })
  local below = {}
  for i = 2, #lines do
    below[#below + 1] = { { lines[i], M.config.hl_group } }
  end
  vim.api.nvim_buf_set_extmark(s.buf, ns, s.row, s.col, {
    virt_text = { { lines[1], M.config.hl_group } },
    virt_text_pos = 'inline',
    virt_lines = #below > 0 and below or nil,
    hl_mode = 'combine',
  })
end

-- Whether the cursor and the text are still where the suggestions were asked for.
local function current(s)
  if not vim.api.nvim_buf_is_valid(s.buf) or vim.api.nvim_get_current_buf() ~= s.buf then
    return false
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  return vim.api.nvim_buf_get_changedtick(s.buf) == s.tick
    and cursor[1] - 1 == s.row
    and cursor[2] == s.col
end

local function snapshot(buf, client)
  local cursor = vim.api.nvim_win_get_cursor(0)
  return {
    buf = buf,
    tick = vim.api.nvim_buf_get_changedtick(buf),
    row = cursor[1] - 1,
    col = cursor[2],
    encoding = client.offset_encoding,
    items = {},
    index = 1,
  }
end

--- Asks the server for suggestions at the cursor and shows the first.
function M.request(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local client = client_for(buf)
  if not client then
    return
  end
  local s = snapshot(buf, client)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  params.context = { triggerKind = 2 }
  client:request('textDocument/inlineCompletion', params, function(err, result)
    if err or not result or not current(s) then
      return
    end
    s.items = result.items or result
    if #s.items == 0 then
      return
    end
    shown[buf] = s
    draw(s)
  end, buf)
end

--- Accepts the suggestion shown: its text replaces its range, and the cursor goes to its end.
--- Returns false when nothing was shown.
function M.accept(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local s = shown[buf]
  if not s or not current(s) then
    M.dismiss(buf)
    return false
  end
  local item = s.items[s.index]
  local ghost, start = ghost_of(s, item)
  if not ghost then
    M.dismiss(buf)
    return false
  end
  local text = item_text(item)
  local end_row, end_col = s.row, s.col
  if item.range then
    end_row = item.range['end'].line
    local line = vim.api.nvim_buf_get_lines(buf, end_row, end_row + 1, false)[1] or ''
    end_col = byte_col(line, item.range['end'].character, s.encoding)
  end
  M.dismiss(buf)
  local lines = vim.split(text, '\n', { plain = true })
  vim.api.nvim_buf_set_text(buf, s.row, start, end_row, end_col, lines)
  local last = s.row + #lines - 1
  local col = #lines == 1 and start + #lines[1] or #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { last + 1, col })
  -- The server learns what was accepted (Copilot's command, which it answers).
  local client = client_for(buf)
  if client and item.command then
    pcall(function()
      client:exec_cmd(item.command, { bufnr = buf })
    end)
  end
  return true
end

local function show_index(s, delta)
  s.index = (s.index - 1 + delta) % #s.items + 1
  draw(s)
end

--- Shows the next (delta 1) or previous (-1) suggestion; the first time, asks the server for
--- more (Copilot's cycling request).
function M.cycle(delta, buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local s = shown[buf]
  if not s or not current(s) then
    return false
  end
  if s.cycled then
    show_index(s, delta)
    return true
  end
  s.cycled = true
  local client = client_for(buf)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  params.doc = {
    uri = params.textDocument.uri,
    position = params.position,
    version = vim.lsp.util.buf_versions[buf],
  }
  client:request('getCompletionsCycling', params, function(err, result)
    if not err and result and current(s) then
      for _, c in ipairs(result.completions or {}) do
        local seen = false
        for _, item in ipairs(s.items) do
          local a, b = ghost_of(s, item), ghost_of(s, c)
          seen = seen or (a ~= nil and a == b)
        end
        if not seen and ghost_of(s, c) then
          s.items[#s.items + 1] = { insertText = c.text, range = c.range }
        end
      end
    end
    if current(s) then
      show_index(s, delta)
    end
  end, buf)
  return true
end

function M.next(buf)
  return M.cycle(1, buf)
end

function M.prev(buf)
  return M.cycle(-1, buf)
end

-- A key that does its own work when a suggestion is shown, and its usual work otherwise.
local function map(key, action)
  if not key then
    return
  end
  vim.keymap.set('i', key, function()
    if not action() then
      vim.api.nvim_feedkeys(vim.keycode(key), 'n', false)
    end
  end, { desc = 'pilotfish' })
end

local function schedule_request(buf)
  local timer = timers[buf]
  if timer then
    timer:stop()
  else
    timer = vim.uv.new_timer()
    timers[buf] = timer
  end
  timer:start(M.config.debounce_ms, 0, vim.schedule_wrap(function()
    if vim.api.nvim_get_mode().mode:sub(1, 1) == 'i' and vim.api.nvim_get_current_buf() == buf then
      M.request(buf)
    end
  end))
end

local function native()
  return M.config.native and vim.lsp.inline_completion ~= nil
end

local function attach(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' then
    return
  end
  local ft = vim.bo[buf].filetype
  if M.config.filetypes and not vim.tbl_contains(M.config.filetypes, ft) then
    return
  end
  vim.lsp.start({
    name = 'pilotfish',
    cmd = M.config.cmd,
    root_dir = vim.fs.root(buf, M.config.root_markers) or vim.fs.dirname(name),
  }, { bufnr = buf })
  require('pilotfish.nes').attach(buf)
  if native() then
    vim.lsp.inline_completion.enable(true, { bufnr = buf })
    return
  end
  local group = vim.api.nvim_create_augroup('pilotfish.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd('TextChangedI', {
    group = group,
    buffer = buf,
    callback = function()
      M.dismiss(buf)
      schedule_request(buf)
    end,
  })
  vim.api.nvim_create_autocmd('CursorMovedI', {
    group = group,
    buffer = buf,
    callback = function()
      local s = shown[buf]
      if s and not current(s) then
        M.dismiss(buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, {
    group = group,
    buffer = buf,
    callback = function()
      M.dismiss(buf)
    end,
  })
end

--- Starts the server for every buffer with a file (or of `filetypes`) and maps the keys.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  require('pilotfish.nes').setup(M.config.next_edit)
  local keys = M.config.keys
  if native() then
    map(keys.accept, function()
      return vim.lsp.inline_completion.get()
    end)
    map(keys.next, function()
      vim.lsp.inline_completion.select({ count = 1 })
      return true
    end)
    map(keys.prev, function()
      vim.lsp.inline_completion.select({ count = -1 })
      return true
    end)
  else
    map(keys.accept, M.accept)
    map(keys.dismiss, M.dismiss)
    map(keys.next, M.next)
    map(keys.prev, M.prev)
  end
  vim.api.nvim_create_autocmd('FileType', {
    group = vim.api.nvim_create_augroup('pilotfish', { clear = true }),
    callback = function(ev)
      attach(ev.buf)
    end,
  })
  -- Buffers already open when setup runs.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype ~= '' then
      attach(buf)
    end
  end
end

return M
