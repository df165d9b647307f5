-- Steps for the headless Neovim scripts: each runs once its condition holds, found by polling
-- Neovim's main loop (so the plugin's timers, autocommands and LSP callbacks run in between);
-- a step that does not happen in time ends the script with its name as the failure.
--   local steps = dofile(dir .. '/steps.lua').new(results, finish, { timeout = 15000, poll = 25 })
--   steps.step('name', condition, action); steps.run()
local M = {}

function M.new(results, finish, opts)
  local list = {}
  local self = {}
  function self.step(name, condition, action)
    list[#list + 1] = { name = name, condition = condition, action = action }
  end
  local function run(i, waited)
    local s = list[i]
    if not s then
      return finish(nil)
    end
    if s.condition() then
      results.steps[#results.steps + 1] = s.name
      if s.action then
        s.action()
      end
      return vim.defer_fn(function()
        run(i + 1, 0)
      end, 20)
    end
    if waited > opts.timeout then
      return finish(s.name)
    end
    vim.defer_fn(function()
      run(i, waited + opts.poll)
    end, opts.poll)
  end
  function self.run()
    run(1, 0)
  end
  return self
end

return M
