--- harness.trust: whether you trust a program that came with a workspace (SPEC §10). A
--- workspace's `.venv/bin/harness-lsp` is the repository's own code: it runs only when
---   - Neovim's trust database allows that very file, by its hash (`:view` it, `:trust`;
---     |vim.secure|): a file changed since is not trusted, or
---   - the workspace is in the `trusted` list of the harness user config (what
---     `:HarnessTrust` and `harness trust DIR` record).
--- Nothing here asks: a question popping up while a file opens would take the keys you
--- type next. Both are read, never written; anything unreadable counts as "not trusted".
local M = {}

--- The harness user config, where the harness reads `trusted` (platformdirs'
--- user_config_dir('harness') .. '/policy.toml').
--- @return string
function M.user_config()
  local home = vim.uv.os_homedir() or '~'
  local sys = vim.uv.os_uname().sysname
  if sys == 'Darwin' then
    return vim.fs.joinpath(home, 'Library/Application Support/harness/policy.toml')
  elseif sys:find('Windows') then
    local base = vim.env.LOCALAPPDATA or vim.fs.joinpath(home, 'AppData/Local')
    return vim.fs.joinpath(base, 'harness/harness/policy.toml')
  end
  local xdg = vim.env.XDG_CONFIG_HOME
  if not xdg or vim.trim(xdg) == '' then
    xdg = vim.fs.joinpath(home, '.config')
  end
  return vim.fs.joinpath(xdg, 'harness/policy.toml')
end

local function read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local text = f:read('*a')
  f:close()
  return text
end

local ESCAPES = { b = '\b', t = '\t', n = '\n', f = '\f', r = '\r', ['"'] = '"', ['\\'] = '\\' }

--- The strings of a TOML array that starts at `text:sub(at)` ('['), or nil when it is not a
--- plain one-level array of strings (then nothing in it is trusted).
local function string_array(text, at)
  local out, i = {}, at + 1
  while true do
    i = text:find('[^%s,]', i)
    if not i then
      return nil
    end
    local c = text:sub(i, i)
    if c == ']' then
      return out
    elseif c == '#' then
      i = (text:find('\n', i, true) or #text) + 1
    elseif c == "'" and text:sub(i, i + 2) ~= "'''" then
      local close = text:find("'", i + 1, true)
      if not close then
        return nil
      end
      out[#out + 1] = text:sub(i + 1, close - 1)
      i = close + 1
    elseif c == '"' and text:sub(i, i + 2) ~= '"""' then
      local value, j, ok = {}, i + 1, false
      while j <= #text do
        local ch = text:sub(j, j)
        if ch == '"' then
          ok = true
          break
        elseif ch == '\\' then
          local e = ESCAPES[text:sub(j + 1, j + 1)]
          if not e then
            return nil
          end
          value[#value + 1], j = e, j + 2
        elseif ch == '\n' then
          return nil
        else
          value[#value + 1], j = ch, j + 1
        end
      end
      if not ok then
        return nil
      end
      out[#out + 1] = table.concat(value)
      i = j + 1
    else
      return nil
    end
  end
end

local function canonical(path)
  path = vim.fs.normalize(path)
  return vim.uv.fs_realpath(path) or path
end

--- The folders of the user config's top-level `trusted` list, canonical.
--- @param config string? the user config (default: M.user_config())
--- @return string[]
function M.trusted_folders(config)
  local text = read(config or M.user_config())
  if not text then
    return {}
  end
  local folders = {}
  for line_start, line in text:gmatch('()([^\n]*)') do
    if line:match('^%s*%[') then -- a table header: what follows is not top level
      break
    end
    local value_at = line:match('^%s*trusted%s*=%s*()%[')
    if value_at then
      for _, entry in ipairs(string_array(text, line_start + value_at - 1) or {}) do
        local path = vim.fs.normalize(entry) -- expands ~
        if path:sub(1, 1) == '/' or path:match('^%a:[/\\]') then
          folders[#folders + 1] = canonical(path)
        end
      end
      break
    end
  end
  return folders
end

--- The trusted folder covering `root` (itself or an ancestor), if any.
--- @param root string
--- @param config string?
--- @return string?
function M.covering(root, config)
  local folder = canonical(root)
  for _, t in ipairs(M.trusted_folders(config)) do
    local prefix = t:gsub('/+$', '') .. '/'
    if folder == t or folder:sub(1, #prefix) == prefix then
      return t
    end
  end
  return nil
end

--- What Neovim's trust database says of `file`: 'allowed', 'denied', 'changed' (allowed
--- once, with other contents) or nil (never decided).
--- @param file string
--- @return string?
function M.secure_verdict(file)
  local full = vim.uv.fs_realpath(file)
  local db = full and read(vim.fs.joinpath(vim.fn.stdpath('state'), 'trust'))
  if not db then
    return nil
  end
  local hash
  for line in vim.gsplit(db, '\n', { plain = true }) do
    local h, path = line:match('^(%S+) (.+)$')
    if path == full then
      hash = h
    end
  end
  if not hash then
    return nil
  elseif hash == '!' then
    return 'denied'
  end
  local contents = read(full)
  return (contents and vim.fn.sha256(contents) == hash) and 'allowed' or 'changed'
end

--- Whether `program` (inside the workspace `root`) may run, and why not.
--- @param program string
--- @param root string
--- @return boolean
--- @return string? why not
function M.allows(program, root)
  local verdict = M.secure_verdict(program)
  if verdict == 'allowed' or M.covering(root) then
    return true
  end
  local why = ({
    denied = 'you denied it (:trust)',
    changed = 'it changed since you trusted it',
  })[verdict or ''] or 'not trusted'
  return false, why
end

return M
