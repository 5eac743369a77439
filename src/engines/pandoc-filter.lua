-- Used by src/engines/pandoc.ts on every run: drops each image whose source pandoc would read from
-- outside the job (a URL, an absolute path, a parent folder), keeping its caption text. Inline
-- data: images stay. Together with --sandbox and a network namespace, a document cannot make
-- pandoc read /etc/passwd or fetch a URL.
local function unsafe(src)
  if src:match('^data:') then return false end
  return src:match('^%a[%w+.-]*:') ~= nil
    or src:match('^[/\\~]') ~= nil
    or src:match('%.%.') ~= nil
end

function Image(el)
  if unsafe(el.src) then return el.caption end
end
