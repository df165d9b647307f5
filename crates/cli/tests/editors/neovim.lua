-- Neovim's own LSP client against `pilotfish lsp`, headless:
--   nvim --headless --clean -l neovim.lua PILOTFISH ENDPOINT FILE OUT
-- Opens FILE, starts the server with vim.lsp.start, puts the cursor at the end of line 5,
-- types a character (Neovim sends an incremental didChange), asks for inline completions with
-- LSP's textDocument/inlineCompletion and with Copilot's getCompletions (as copilot.lua sends
-- it), and writes what came back to OUT as JSON.
local pilotfish, endpoint, file, out = arg[1], arg[2], arg[3], arg[4]
local results = {}

vim.cmd.edit(file)
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].filetype = 'python'
local client_id = vim.lsp.start({
  name = 'pilotfish',
  cmd = { pilotfish, 'lsp', '--backend', 'llama-infill', '--endpoint', endpoint },
  root_dir = vim.fs.dirname(file),
}, { bufnr = buf })
local client = vim.lsp.get_client_by_id(client_id)
assert(vim.wait(20000, function() return client.initialized end), 'the server initializes')
results.offset_encoding = client.offset_encoding

-- The cursor at the end of line 5, then one character typed.
local line = vim.api.nvim_buf_get_lines(buf, 4, 5, true)[1]
vim.api.nvim_buf_set_text(buf, 4, #line, 4, #line, { 't' })
vim.api.nvim_win_set_cursor(0, { 5, #line + 1 })

local function ask(method, params)
  local done, answer = false, nil
  client:request(method, params, function(err, result)
    answer = { err = err, result = result }
    done = true
  end, buf)
  assert(vim.wait(60000, function() return done end), method .. ' answers')
  return answer
end

-- Neovim's own conversion of the byte column after the typed character (normal mode would
-- put the cursor on it, not after it).
local pos = vim.lsp.util.make_position_params(0, client.offset_encoding)
pos.position.character = vim.lsp.util.character_offset(buf, 4, #line + 1, client.offset_encoding)
results.position = pos.position
results.inline = ask('textDocument/inlineCompletion', {
  textDocument = pos.textDocument,
  position = pos.position,
  context = { triggerKind = 1 },
})
local version = vim.lsp.util.buf_versions[buf]
results.copilot = ask('getCompletions', {
  doc = { uri = pos.textDocument.uri, version = version, position = pos.position,
          insertSpaces = true, tabSize = 4, indentSize = 4 },
  textDocument = { uri = pos.textDocument.uri, version = version },
  position = pos.position,
  _ = true,
})
results.stats = ask('pilotfish/stats', vim.empty_dict())

vim.fn.writefile({ vim.json.encode(results) }, out)
client:stop()
vim.wait(5000, function() return client:is_stopped() end)
vim.cmd('qall!')
