--- harness.health: :checkhealth harness — Neovim's version, the server (found where, its
--- version), the provider settings and the API key, the store, bubblewrap.
local attach = require('harness.attach')
local config = require('harness.config')
local server = require('harness.server')
local plain = require('harness.text').plain

local M = {}

local health = vim.health

-- The provider's usual key variable (SPEC §8); ollama and custom base URLs need none.
local KEY_VARS = {
  openai = 'OPENAI_API_KEY',
  anthropic = 'ANTHROPIC_API_KEY',
  openrouter = 'OPENROUTER_API_KEY',
}

local function workspace_root()
  return attach.root(vim.api.nvim_get_current_buf()) or vim.fs.normalize(vim.fn.getcwd())
end

--- The server's version and status: from the running client, else from a probe.
local function ask_server(argv, root)
  local client = require('harness.rpc').client()
  if client and client.initialized then
    local folder = client.root_dir or root
    local params = { command = 'harness.status', arguments = { { workspaceFolder = folder } } }
    local answer = client:request_sync('workspace/executeCommand', params, 10000)
    local info = client.server_info or {}
    return {
      name = info.name,
      version = info.version,
      status = answer and answer.result,
      error = answer and (answer.err and answer.err.message),
      warnings = {},
      running = true,
    }
  end
  return require('harness.probe').ask(argv, root, config.server_settings())
end

--- `scheme`, `host`, `port` of an http(s) URL; nil when it is not one.
--- @param url string
function M.parse_url(url)
  local scheme, rest = url:match('^(https?)://([^/?#]+)')
  if not scheme then
    return nil
  end
  local host, port = rest:match('^%[([^%]]+)%]:?(%d*)$')
  if not host then
    host, port = rest:match('^([^:]+):?(%d*)$')
  end
  if not host or host == '' then
    return nil
  end
  port = tonumber(port) or (scheme == 'https' and 443 or 80)
  return { scheme = scheme, host = host, port = port }
end

--- Whether something accepts connections at the URL's host and port, within `timeout_ms`.
--- @return boolean ok
--- @return string what happened
function M.probe(url, timeout_ms)
  local parsed = M.parse_url(url)
  if not parsed then
    return false, 'not an http(s) URL'
  end
  local infos = vim.uv.getaddrinfo(parsed.host, tostring(parsed.port), { socktype = 'stream' })
  if not infos or not infos[1] then
    return false, ('%s does not resolve'):format(parsed.host)
  end
  local tcp = vim.uv.new_tcp()
  local done, err
  local start = vim.uv.hrtime()
  tcp:connect(infos[1].addr, parsed.port, function(e)
    done, err = true, e
  end)
  vim.wait(timeout_ms, function()
    return done
  end, 10)
  pcall(tcp.close, tcp)
  if not done then
    return false, ('no answer from %s:%d within %d ms'):format(parsed.host, parsed.port, timeout_ms)
  elseif err then
    return false, ('%s:%d: %s'):format(parsed.host, parsed.port, err)
  end
  local ms = math.floor((vim.uv.hrtime() - start) / 1e6)
  return true, ('%s:%d answers (%d ms)'):format(parsed.host, parsed.port, ms)
end

--- The base URL you set (setup()'s settings.provider.baseUrl, else $HARNESS_BASE_URL):
--- an error when it is not an http(s) URL, a warning when nothing answers there.
local function check_base_url()
  local provider = (config.options.settings or {}).provider
  local mine = type(provider) == 'table' and provider.baseUrl or nil
  local url = mine or vim.env.HARNESS_BASE_URL
  local where = mine and 'settings.provider.baseUrl in setup()' or '$HARNESS_BASE_URL'
  if url == nil or url == '' then
    health.info("no base URL set: the provider's hosted API is used (not probed)")
    return
  end
  if type(url) ~= 'string' or not M.parse_url(url) then
    health.error(plain(('%s = %s is not an http(s) URL'):format(where, vim.inspect(url))), {
      "write the whole URL, e.g. baseUrl = 'http://localhost:18080/v1'",
      'until then no run starts (none goes to the hosted API instead)',
    })
    return
  end
  local ok, what = M.probe(url, 1500)
  if ok then
    health.ok(plain('the base URL answers: ' .. what))
  else
    health.warn(plain(('the base URL %s does not answer: %s'):format(url, what)), {
      'start the model server, or fix ' .. where,
    })
  end
end

local function check_provider(status)
  local settings = status and status.settings or {}
  local provider = settings.provider or {}
  local name = provider.name ~= vim.NIL and provider.name or vim.env.HARNESS_PROVIDER or 'openai'
  local base_url = provider.baseUrl ~= vim.NIL and provider.baseUrl or vim.env.HARNESS_BASE_URL
  local model = provider.model ~= vim.NIL and provider.model or vim.env.HARNESS_MODEL
  health.info(
    plain(
      ('provider %s, model %s, base URL %s'):format(
        tostring(name),
        tostring(model or "(the provider's default)"),
        tostring(base_url or "(the provider's)")
      )
    )
  )
  if name == 'ollama' or (base_url and base_url ~= '') then
    health.ok('no API key needed (a local or custom server)')
    return
  end
  local key_env = provider.apiKeyEnv ~= vim.NIL and provider.apiKeyEnv or KEY_VARS[name]
  if vim.env.HARNESS_API_KEY or (key_env and vim.env[key_env]) then
    health.ok(
      ('an API key is set (%s)'):format(vim.env.HARNESS_API_KEY and 'HARNESS_API_KEY' or key_env)
    )
  else
    health.warn('no API key in the environment: runs will fail to start', {
      ('export HARNESS_API_KEY or %s before starting Neovim'):format(key_env or 'the key variable'),
    })
  end
end

local function check_store(status)
  local path = status and status.storePath
  if type(path) ~= 'string' then
    health.warn('the server did not say where its store is')
    return
  end
  local dir = vim.fs.dirname(path)
  local file_ok = not vim.uv.fs_stat(path) or vim.uv.fs_access(path, 'W')
  if vim.uv.fs_stat(dir) and vim.uv.fs_access(dir, 'W') and file_ok then
    health.ok('store: ' .. plain(path))
  else
    health.error(
      'store not writable: ' .. plain(path),
      { 'set settings.storePath or $HARNESS_STORE' }
    )
  end
end

local function check_layout()
  local win = require('harness.convwin')
  local layout = win.layout()
  local how = config.options.layout and 'layout in setup()' or 'fits the screen'
  local size = layout == 'horizontal' and ('%d lines'):format(win.height())
    or layout == 'vertical' and ('%d columns'):format(win.width())
    or layout
  health.ok(
    ('conversation: %s (%s), %s; the code window keeps %d columns'):format(
      layout,
      how,
      size,
      layout == 'vertical' and math.max(0, vim.o.columns - win.width() - 1) or vim.o.columns
    )
  )
  local md = pcall(vim.treesitter.language.add, 'markdown')
    and pcall(vim.treesitter.language.add, 'markdown_inline')
  if md then
    health.ok("the model's Markdown is drawn with treesitter (markdown, markdown_inline)")
  else
    health.info('no treesitter markdown parsers: the conversation is plain text')
  end
end

--- The language servers the semantic tools use (SPEC §14): the ones the harness started
--- (harness.status) and the editor's own attached to this buffer.
local function check_language_servers(status)
  local started = status and status.languageServers
  if type(started) == 'table' and started[1] then
    for _, ls in ipairs(started) do
      health.ok('started by the harness: ' .. plain(ls))
    end
  else
    health.info('the harness started no language server yet (it does on the first semantic call)')
  end
  local mine = {}
  for _, client in ipairs(vim.lsp.get_clients({ bufnr = 0 })) do
    if client.name ~= 'harness' then
      mine[#mine + 1] = client.name
    end
  end
  if mine[1] then
    health.info("this buffer's own language servers: " .. plain(table.concat(mine, ', ')))
  else
    health.info('no other language server is attached to this buffer')
  end
end

function M.check()
  health.start('harness: Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok(('Neovim %s'):format(tostring(vim.version())))
  else
    health.error('Neovim 0.11 or newer is needed', { 'upgrade Neovim' })
    return
  end

  health.start('harness: server')
  local root = workspace_root()
  local argv, how, passed = server.find(root)
  if passed then
    health.warn(passed .. ': not run', {
      ':HarnessTrust (or `harness trust DIR`) trusts the folder',
      '`:view` the file and `:trust` it (Neovim trusts it until it changes)',
    })
  end
  if not argv then
    health.error(how, { server.install_hint })
    return
  end
  health.ok(('harness-lsp found through %s: %s'):format(how, table.concat(argv, ' ')))
  local answer, err = ask_server(argv, root)
  if not answer then
    health.error('harness-lsp did not start: ' .. plain(err))
    return
  end
  health.ok(
    ('%s %s answers%s'):format(
      plain(answer.name or 'harness-lsp'),
      plain(answer.version or '(no version)'),
      answer.running and ' (the running client)' or ''
    )
  )
  for _, warning in ipairs(answer.warnings or {}) do
    health.warn(plain(warning))
  end
  if answer.error then
    health.warn('harness.status: ' .. plain(answer.error))
  end

  health.start('harness: provider')
  check_base_url()
  check_provider(answer.status)

  health.start('harness: conversation')
  check_layout()

  health.start('harness: language servers')
  check_language_servers(answer.status)

  health.start('harness: store and sandbox')
  check_store(answer.status)
  if vim.fn.has('linux') == 1 then
    if vim.fn.executable('bwrap') == 1 then
      health.ok('bubblewrap (bwrap) is installed: commands run sandboxed')
    else
      health.warn(
        'bubblewrap (bwrap) is not installed: commands the agent runs are not sandboxed',
        {
          'install bubblewrap (Debian/Ubuntu: apt install bubblewrap)',
        }
      )
    end
  end
end

return M
