--- pilotfish's next edit suggestions in Neovim: after an edit, the server's
--- `textDocument/copilotInlineEdit` is asked for the edit the user will make next, anywhere
--- near the cursor. The text it would replace is highlighted and the new text shown as virtual
--- lines below it; accepting applies it (and tells the server), dismissing tells the server it
--- was turned down.
---
---   require('pilotfish').setup({ next_edit = { enabled = true, accept = '<M-CR>', dismiss = '<M-Esc>' } })
local M = {}

local ns = vim.api.nvim_create_namespace('pilotfish.nes')

M.config = {
  enabled = true,
  -- Keys (normal and insert mode); false leaves one unmapped.
  accept = '<M-CR>',
  dismiss = '<M-Esc>',
  -- How long after an edit the suggestion is asked for, in milliseconds.
  debounce_ms = 100,
  -- Highlight groups: the text to be replaced, and the new text.
  hl_old = 'DiffDelete',
  hl_new = 'DiffAdd',
}

-- Per buffer: the suggestion shown ({edit, tick, client}).
local shown = {}
local timers = {}

local function client_for(buf)
  return require('pilotfish').client_for(buf)
end

-- A position's character (in the client's encoding) as a byte column of its line.
local function byte_col(buf, pos, encoding)
  local line = vim.api.nvim_buf_get_lines(buf, pos.line, pos.line + 1, false)[1] or ''
  if encoding == 'utf-8' then
    return math.min(pos.character, #line)
  end
  local ok, col = pcall(vim.str_byteindex, line, encoding, pos.character, false)
  return ok and col or #line
end

--- The suggestion shown in `buf`, if any (for tests and statuslines).
function M.current(buf)
  return shown[buf or vim.api.nvim_get_current_buf()]
end

--- Removes the suggestion of `buf`; `rejected` tells the server it was turned down.
function M.dismiss(buf, rejected)
  buf = buf or vim.api.nvim_get_current_buf()
  local s = shown[buf]
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  end
  shown[buf] = nil
  if s and rejected and s.client then
    s.client:notify('textDocument/didRejectInlineEdit', { item = s.edit })
  end
  return s ~= nil
end

local function draw(buf, s)
  local e = s.edit
  local r = e.range
  local sc = byte_col(buf, r.start, s.client.offset_encoding)
  local ec = byte_col(buf, r['end'], s.client.offset_encoding)
  if r.start.line ~= r['end'].line or sc ~= ec then
    vim.api.nvim_buf_set_extmark(buf, ns, r.start.line, sc, {
      end_row = r['end'].line,
      end_col = ec,
      hl_group = M.config.hl_old,
    })
  end
  -- The edited lines as they would read, below the last line the edit touches.
  local first = vim.api.nvim_buf_get_lines(buf, r.start.line, r.start.line + 1, false)[1] or ''
  local last = vim.api.nvim_buf_get_lines(buf, r['end'].line, r['end'].line + 1, false)[1] or ''
  local after = first:sub(1, sc) .. e.text .. last:sub(ec + 1)
  local lines = {}
  for _, l in ipairs(vim.split(after, '\n', { plain = true })) do
    lines[#lines + 1] = { { l, M.config.hl_new } }
  end
  vim.api.nvim_buf_set_extmark(buf, ns, r['end'].line, 0, { virt_lines = lines })
end

--- Asks the server for the next edit in `buf` and shows it.
function M.request(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local client = client_for(buf)
  if not client then
    return
  end
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  params.textDocument.version = vim.lsp.util.buf_versions[buf]
  client:request('textDocument/copilotInlineEdit', params, function(err, result)
    if err or not result or not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    -- An answer about text the user has changed since is stale.
    if vim.api.nvim_buf_get_changedtick(buf) ~= tick then
      return
    end
    local edit = (result.edits or {})[1]
    M.dismiss(buf)
    if not edit then
      return
    end
    local s = { edit = edit, tick = tick, client = client }
    shown[buf] = s
    draw(buf, s)
    client:notify('textDocument/didShowInlineEdit', { item = edit })
  end, buf)
end

--- Applies the suggestion shown; false when there is none (or the text changed under it).
function M.accept(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local s = shown[buf]
  if not s then
    return false
  end
  M.dismiss(buf)
  if vim.api.nvim_buf_get_changedtick(buf) ~= s.tick then
    return false
  end
  local e = s.edit
  vim.lsp.util.apply_text_edits({ { range = e.range, newText = e.text } }, buf,
    s.client.offset_encoding)
  if e.command then
    pcall(function()
      s.client:exec_cmd(e.command, { bufnr = buf })
    end)
  end
  return true
end

local function schedule(buf)
  local timer = timers[buf]
  if timer then
    timer:stop()
  else
    timer = vim.uv.new_timer()
    timers[buf] = timer
  end
  timer:start(M.config.debounce_ms, 0, vim.schedule_wrap(function()
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_get_current_buf() == buf then
      M.request(buf)
    end
  end))
end

local function map(key, action)
  if not key then
    return
  end
  vim.keymap.set({ 'n', 'i' }, key, function()
    if not action() then
      vim.api.nvim_feedkeys(vim.keycode(key), 'n', false)
    end
  end, { desc = 'pilotfish next edit' })
end

--- Watches `buf`: every edit dismisses the suggestion and asks for a new one.
function M.attach(buf)
  if not M.config.enabled then
    return
  end
  local group = vim.api.nvim_create_augroup('pilotfish.nes.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = buf,
    callback = function()
      M.dismiss(buf, true)
      schedule(buf)
    end,
  })
  vim.api.nvim_create_autocmd('BufLeave', {
    group = group,
    buffer = buf,
    callback = function()
      M.dismiss(buf, true)
    end,
  })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  if not M.config.enabled then
    return
  end
  map(M.config.accept, M.accept)
  map(M.config.dismiss, function()
    return M.dismiss(nil, true)
  end)
end

return M
