--- harness.text: the one way a string from the model, a repository or the server is shown
--- (SPEC §6.3, §6.7): as plain text. Control and invisible characters are escaped the way
--- the harness escapes them on a terminal (`\n`, `\r`, `\t`, `\x1b`, `\u202e`), so nothing
--- can hide part of a command, fake a line of its own or redraw the screen, and bytes that
--- are not UTF-8 are shown as `\xNN`. Used for every message, float, buffer and statusline
--- the plugin fills; no view of it renders Markdown.
local M = {}

local NAMED = { ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

-- Code points beyond ASCII that are not printable text: Unicode's (14.0) Cc, Cf, Zs
-- (but U+0020), Zl, Zp, Co and Cs — C1 controls, bidi overrides, zero-widths, spaces that
-- look like U+0020, private use. Escaped as Python's str.isprintable() decides (the CLI).
local HIDDEN = {
  { 0x80, 0xA0 },
  { 0xAD, 0xAD },
  { 0x600, 0x605 },
  { 0x61C, 0x61C },
  { 0x6DD, 0x6DD },
  { 0x70F, 0x70F },
  { 0x890, 0x891 },
  { 0x8E2, 0x8E2 },
  { 0x1680, 0x1680 },
  { 0x180E, 0x180E },
  { 0x2000, 0x200F },
  { 0x2028, 0x202F },
  { 0x205F, 0x206F },
  { 0x3000, 0x3000 },
  { 0xD800, 0xF8FF },
  { 0xFEFF, 0xFEFF },
  { 0xFFF9, 0xFFFB },
  { 0x110BD, 0x110BD },
  { 0x110CD, 0x110CD },
  { 0x13430, 0x13438 },
  { 0x1BCA0, 0x1BCA3 },
  { 0x1D173, 0x1D17A },
  { 0xE0001, 0xE0001 },
  { 0xE0020, 0xE007F },
  { 0xF0000, 0x10FFFF },
}

local function hidden(cp)
  -- Most text (Latin to Indic, CJK, emoji) lies between the ranges: answered at once.
  if
    (cp > 0x8E2 and cp < 0x1680)
    or (cp > 0x3000 and cp < 0xD800)
    or (cp > 0x1D17A and cp < 0xE0001)
  then
    return false
  end
  for _, range in ipairs(HIDDEN) do -- sorted
    if cp < range[1] then
      return false
    elseif cp <= range[2] then
      return true
    end
  end
  return false
end

-- Lead byte → length and the smallest code point of that length (no overlong forms).
local function sequence(b)
  if b >= 0xC2 and b <= 0xDF then
    return 2, 0x80
  elseif b >= 0xE0 and b <= 0xEF then
    return 3, 0x800
  elseif b >= 0xF0 and b <= 0xF4 then
    return 4, 0x10000
  end
  return nil
end

--- The code point of the UTF-8 sequence at `s:sub(i)` and its length; nil when invalid.
local function decode(s, i)
  local b = s:byte(i)
  local len, least = sequence(b)
  if not len then
    return nil
  end
  local cp = b % (2 ^ (7 - len))
  for k = 1, len - 1 do
    local c = s:byte(i + k)
    if not c or c < 0x80 or c > 0xBF then
      return nil
    end
    cp = cp * 64 + (c - 0x80)
  end
  if cp < least or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then
    return nil
  end
  return cp, len
end

local function escape_char(s, i, out, keep_newlines)
  local b = s:byte(i)
  if b < 0x80 then
    local c = string.char(b)
    if keep_newlines and c == '\n' then
      out[#out + 1] = c
    else
      out[#out + 1] = NAMED[c] or ('\\x%02x'):format(b)
    end
    return 1
  end
  local cp, len = decode(s, i)
  if not cp then
    out[#out + 1] = ('\\x%02x'):format(b)
    return 1
  elseif hidden(cp) then
    out[#out + 1] = (cp < 0x100 and '\\x%02x' or '\\u%04x'):format(cp)
  else
    out[#out + 1] = s:sub(i, i + len - 1)
  end
  return len
end

--- `s` as plain text (see the module doc). Options:
---   keep_newlines  a newline stays a line break (for a buffer or float split into lines);
---   statusline     `%` is doubled, so the text is literal in a 'statusline' format string.
--- @param s any
--- @param opts { keep_newlines: boolean?, statusline: boolean? }?
--- @return string
function M.plain(s, opts)
  opts = type(opts) == 'table' and opts or {}
  s = type(s) == 'string' and s or tostring(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local stop = s:find('[%z\1-\31\127-\255]', i)
    if not stop then
      out[#out + 1] = s:sub(i)
      break
    end
    if stop > i then
      out[#out + 1] = s:sub(i, stop - 1)
    end
    i = stop + escape_char(s, stop, out, opts.keep_newlines)
  end
  local text = table.concat(out)
  if opts.statusline then
    text = text:gsub('%%', '%%%%')
  end
  return text
end

--- The lines of `s` as plain text: a newline starts a new line, nothing else does.
--- @param s any
--- @return string[]
--- `1 step`, `3 steps`: a count and its noun, singular for one.
--- @param n any a number (anything else is shown as it is)
--- @param noun string the singular
--- @return string
function M.count(n, noun)
  return ('%s %s%s'):format(tostring(n), noun, tonumber(n) == 1 and '' or 's')
end

function M.lines(s)
  return vim.split(M.plain(s, { keep_newlines = true }), '\n', { plain = true })
end

return M
